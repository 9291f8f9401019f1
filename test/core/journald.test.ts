import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, isJournalStream, syslogPriority } from '../../src/core/index.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A real file standing in for the journal's socket: JOURNAL_STREAM names its dev:ino. */
function fakeJournal(): { fd: number; file: string; stream: string } {
  const t = tempDir('journald-');
  cleanups.push(t.cleanup);
  const file = join(t.dir, 'stdout');
  const fd = openSync(file, 'w+');
  const st = fstatSync(fd, { bigint: true });
  return { fd, file, stream: `${st.dev}:${st.ino}` };
}

const opened: number[] = [];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
  for (const c of cleanups.splice(0)) c();
});

function logEveryLevel(fd: number, file: string, env: NodeJS.ProcessEnv): string[] {
  const log = createLogger({ level: 'trace', fd, env });
  log.trace('t');
  log.debug('d');
  log.child({ module: 'x' }).info('i');
  log.warn('w');
  log.error('e');
  log.fatal('f');
  log.flush();
  return readFileSync(file, 'utf8').trim().split('\n');
}

describe('journald priority prefixes', () => {
  it('prefixes each line with its sd-daemon priority when stdout is the journal, the JSON after it unchanged', () => {
    const j = fakeJournal();
    opened.push(j.fd);
    expect(isJournalStream(j.fd, { JOURNAL_STREAM: j.stream })).toBe(true);
    const lines = logEveryLevel(j.fd, j.file, { JOURNAL_STREAM: j.stream });
    expect(lines.map((l) => l.slice(0, 3))).toEqual(['<7>', '<7>', '<6>', '<4>', '<3>', '<2>']);
    for (const line of lines) {
      const json = JSON.parse(line.slice(3)) as { level: number; msg: string };
      expect(syslogPriority(json.level)).toBe(Number(line[1]));
    }
    expect(JSON.parse(lines[2]?.slice(3) ?? '')).toMatchObject({ module: 'x', msg: 'i', level: 30 });
  });

  it('writes plain JSON lines without JOURNAL_STREAM, or when it names another file (a redirected child)', () => {
    const j = fakeJournal();
    const other = fakeJournal();
    opened.push(j.fd, other.fd);
    for (const env of [{}, { JOURNAL_STREAM: other.stream }, { JOURNAL_STREAM: 'garbage' }]) {
      expect(isJournalStream(j.fd, env)).toBe(false);
    }
    const plain = logEveryLevel(j.fd, j.file, { JOURNAL_STREAM: other.stream });
    expect(plain).toHaveLength(6);
    for (const line of plain) expect(line.startsWith('{"level":')).toBe(true);
  });
});
