import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { de } from '../../src/ui/page/texts-de.js';
import { en } from '../../src/ui/page/texts-en.js';

/**
 * The counter page's catalogs (docs/counter-page.md, "Local API and counter page",
 * languages): German has exactly the English keys, with the same placeholders; every key
 * the page's scripts and index.html name is in the catalog, and every catalog key is used.
 */
const PAGE = join(process.cwd(), 'src/ui/page');
const CATALOGS: Record<string, Record<string, string>> = { de };
/** Keys the scripts build from a prefix and a value (`outcome.${state}`): their prefixes. */
const DYNAMIC = ['outcome.', 'state.', 'queue.', 'done.', 'kind.', 'device.'];

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '').sort();

function sources(): Array<{ file: string; text: string }> {
  return readdirSync(PAGE)
    .filter((f) => (f.endsWith('.ts') && !f.startsWith('texts-')) || f.endsWith('.html'))
    .map((f) => ({ file: f, text: readFileSync(join(PAGE, f), 'utf8') }));
}

/** Keys named literally: t('x.y') / say('x.y') in scripts, data-i18n*="x.y" in index.html, and 'x.y' string literals that are keys. */
function namedKeys(): Map<string, string> {
  const named = new Map<string, string>();
  for (const { file, text } of sources()) {
    for (const m of text.matchAll(/\b(?:t|say)\(\s*'([\w.]+)'/g)) named.set(m[1] ?? '', file);
    for (const m of text.matchAll(/data-i18n(?:-[a-z-]+)?="([\w.]+)"/g)) named.set(m[1] ?? '', file);
    for (const m of text.matchAll(/'([a-zA-Z]+\.[\w]+)'/g)) if ((m[1] ?? '') in en) named.set(m[1] ?? '', file);
  }
  return named;
}

describe('counter page texts', () => {
  for (const [lang, catalog] of Object.entries(CATALOGS)) {
    it(`${lang} has every English key and no other`, () => {
      const missing = Object.keys(en).filter((k) => !(k in catalog));
      const extra = Object.keys(catalog).filter((k) => !(k in en));
      expect({ missing, extra }).toEqual({ missing: [], extra: [] });
    });

    it(`${lang} fills the same placeholders as English, and says something for each key`, () => {
      const differ = Object.entries(en)
        .filter(
          ([k, v]) => catalog[k] !== undefined && placeholders(catalog[k] ?? '').join() !== placeholders(v).join(),
        )
        .map(([k]) => k);
      expect(differ).toEqual([]);
      expect(
        Object.entries(catalog)
          .filter(([, v]) => v.trim() === '')
          .map(([k]) => k),
      ).toEqual([]);
    });
  }

  it('every key the page names is in the catalog', () => {
    const unknown = [...namedKeys()].filter(([k]) => !(k in en)).map(([k, file]) => `${file}: ${k}`);
    expect(unknown).toEqual([]);
  });

  it('every catalog key is used by the page', () => {
    const named = namedKeys();
    const unused = Object.keys(en).filter((k) => !named.has(k) && !DYNAMIC.some((p) => k.startsWith(p)));
    expect(unused).toEqual([]);
  });

  it('the page has no English words left in its scripts outside the catalog', () => {
    // A sentence in quotes (a capital, then words and a space) in a page script is a text that bypasses the catalog.
    const found: string[] = [];
    for (const { file, text } of sources().filter((s) => s.file.endsWith('.ts') && s.file !== 'i18n.ts')) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      for (const m of code.matchAll(/(['`])([A-Z][a-z]+(?: [a-z]+){2,}[^'`]*)\1/g)) found.push(`${file}: ${m[2]}`);
    }
    expect(found).toEqual([]);
  });
});
