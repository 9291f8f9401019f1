import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * One place a file cites a document: `docs/<file>.md`, `README.md` or `test/README.md`,
 * optionally followed by `, "Section"`.
 */
export interface Citation {
  from: string;
  line: number;
  file: string;
  section?: string;
}

const SOURCE = /\.(ts|mts|mjs|js|md)$/;

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name)) out.push(path);
  }
}

/** The files under `dirs` (relative to `root`) that may cite documents. */
export function citingFiles(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  for (const d of dirs) {
    const path = join(root, d);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

// A citation may run over a comment's line break: `docs/x.md,` at the end of one line and
// `// "Section"` or ` * "Section"` at the start of the next.
const CITATION =
  /(?<![\w/.-])((?:test\/)?README\.md|docs\/[a-z0-9-]+\.md)(?:,|:)?((?:\s|\/\/|\*(?!\/)|#)*)(\\?")((?:[^"\\\n]|\n[ \t]*(?:\/\/|\*(?!\/))?[ \t]*){1,160}?)\\?"/g;
const BARE = /(?<![\w/.-])((?:test\/)?README\.md|docs\/[a-z0-9-]+\.md)/g;

/** Every citation in a file's text. */
export function citationsIn(from: string, text: string): Citation[] {
  const out: Citation[] = [];
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  const withSection = new Set<number>();
  for (const m of text.matchAll(CITATION)) {
    const [, file = '', gap = '', , section = ''] = m;
    // The quote must come straight after the file's name and its comma, across at most one line break.
    if ((gap.match(/\n/g) ?? []).length > 1) continue;
    withSection.add(m.index);
    out.push({
      from,
      line: lineOf(m.index),
      file,
      section: section
        .replace(/\n[ \t]*(?:\/\/|\*)?[ \t]*/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    });
  }
  for (const m of text.matchAll(BARE)) {
    if (withSection.has(m.index)) continue;
    out.push({ from, line: lineOf(m.index), file: m[1] ?? '' });
  }
  return out;
}

/** The headings of a Markdown file, outside its code blocks, without their `#` marks. */
export function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (m?.[1] !== undefined) headings.add(m[1]);
  }
  return headings;
}

/** The citations under `root` that name a document or a quoted section that does not exist (paths relative to `root`). */
export function brokenCitations(
  root: string,
  dirs: string[],
  skip: string[] = [],
): { checked: number; broken: string[] } {
  const headings = new Map<string, Set<string> | null>();
  const headingsFor = (file: string): Set<string> | null => {
    if (!headings.has(file)) {
      const path = join(root, file);
      headings.set(file, existsSync(path) ? headingsOf(readFileSync(path, 'utf8')) : null);
    }
    return headings.get(file) ?? null;
  };
  const broken: string[] = [];
  let checked = 0;
  for (const path of citingFiles(root, dirs)) {
    const from = relative(root, path);
    if (skip.includes(from)) continue;
    const citations = citationsIn(from, readFileSync(path, 'utf8')).sort((a, b) => a.line - b.line);
    for (const c of citations) {
      checked += 1;
      const found = headingsFor(c.file);
      if (found === null) broken.push(`${c.from}:${c.line} cites ${c.file}, which does not exist`);
      else if (c.section !== undefined && !found.has(c.section))
        broken.push(`${c.from}:${c.line} cites ${c.file}, "${c.section}", which is no heading there`);
    }
  }
  return { checked, broken };
}
