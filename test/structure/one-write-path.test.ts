import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { citingFiles } from './doc-citations.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The journal's own folder (the row store) and the writer are the only places that write rows. */
const ALLOWED_WRITERS = ['src/payments/journal/', 'src/payments/journal-writer.ts'];

/** A call of the journal's row writes: `journal.update(`, `this.journal.insert(`, `ctx.journal.transaction(`. */
const ROW_WRITE = /\bjournal\s*\.\s*(update|insert|transaction)\s*\(/g;
const PUBLISH_UPDATED = /\.publish\(\s*'transaction\.updated'/g;

/** Each offending line as `file:line: text`. */
export function offences(files: Array<{ path: string; text: string }>, pattern: RegExp, allowed: string[]): string[] {
  const found: string[] = [];
  for (const f of files) {
    if (allowed.some((a) => f.path.startsWith(a))) continue;
    f.text.split('\n').forEach((line, i) => {
      pattern.lastIndex = 0;
      if (pattern.test(line)) found.push(`${f.path}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

/** docs/journal.md, "One write path". */
describe('one write path for journal rows', () => {
  const files = citingFiles(ROOT, ['src'])
    .filter((p) => p.endsWith('.ts'))
    .map((p) => ({
      path: relative(ROOT, p),
      text: readFileSync(p, 'utf8'),
    }));

  it('no file outside the journal writer and the journal folder writes a row', () => {
    expect(offences(files, ROW_WRITE, ALLOWED_WRITERS)).toEqual([]);
  });

  it('only the journal writer publishes transaction.updated', () => {
    expect(offences(files, PUBLISH_UPDATED, ['src/payments/journal-writer.ts'])).toEqual([]);
  });

  it('the check finds a row write and a publish where they do not belong', () => {
    const planted = [
      { path: 'src/offline/queue.ts', text: 'x\n  ctx.journal.update(id, { state: "approved" });' },
      { path: 'src/events/relay.ts', text: "opts.bus.publish('transaction.updated', view);" },
    ];
    expect(offences(planted, ROW_WRITE, ALLOWED_WRITERS)).toEqual([
      'src/offline/queue.ts:2: ctx.journal.update(id, { state: "approved" });',
    ]);
    expect(offences(planted, PUBLISH_UPDATED, ['src/payments/journal-writer.ts'])).toHaveLength(1);
  });
});
