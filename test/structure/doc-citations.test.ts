import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { brokenCitations } from './doc-citations.js';
import { tempDir } from '../helpers/temp-dir.js';

// Code, tests and documents cite the docs as `docs/<file>.md, "Section"` (and `README.md`,
// `test/README.md` alike); a cited file or heading that does not exist sends a reader nowhere.
const ROOT = join(import.meta.dirname, '..', '..');
const CITING = ['src', 'test', 'scripts', 'config', 'deploy', 'examples', 'docs', 'README.md'];
// These two cite made-up documents on purpose.
const SELF = ['test/structure/doc-citations.ts', 'test/structure/doc-citations.test.ts'];

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tree(files: Record<string, string>): string {
  const { dir: root, cleanup } = tempDir('citations-');
  cleanups.push(cleanup);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('citations of the docs', () => {
  it('every docs file and quoted section cited in the repository exists', () => {
    const { checked, broken } = brokenCitations(ROOT, CITING, SELF);
    expect(checked).toBeGreaterThan(500);
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('reports a missing file, a missing heading and a heading cited across a comment line break', () => {
    const root = tree({
      'docs/a.md': '# A\n\n## Journal\n\n```\n## Not a heading\n```\n',
      'README.md': '# R\n\n## Set-up\n',
      'src/x.ts': [
        '// docs/a.md, "Journal" holds; docs/b.md does not exist',
        '/**',
        ' * kept as the journal says (docs/a.md,',
        ' * "Journals")',
        ' */',
        'const s = "docs/a.md, \\"Not a heading\\"";',
        '// docs/a.md, "A" is the title',
        '// docs/a.md, "Not',
        '// a heading"',
        '// README.md, "Set-up" holds; test/README.md, "Helpers" does not',
      ].join('\n'),
    });
    const { checked, broken } = brokenCitations(root, ['src']);
    expect(checked).toBe(8);
    expect(broken).toEqual([
      'src/x.ts:1 cites docs/b.md, which does not exist',
      'src/x.ts:3 cites docs/a.md, "Journals", which is no heading there',
      'src/x.ts:6 cites docs/a.md, "Not a heading", which is no heading there',
      'src/x.ts:8 cites docs/a.md, "Not a heading", which is no heading there',
      'src/x.ts:10 cites test/README.md, which does not exist',
    ]);
  });
});
