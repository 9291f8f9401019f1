import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { AgentError, ErrorCodes } from '../core/index.js';
import { scrubLogLine, scrubPemBlocks } from './scrub.js';

export interface LogTail {
  file: string;
  /** The last lines, each scrubbed. */
  lines: string[];
  /** The file was longer than what was read. */
  truncated: boolean;
}

/** At most this much of the end of a log file is read. */
const MAX_READ_BYTES = 8 * 1024 * 1024;

/** The last `count` lines of `file`, each scrubbed of secrets (scrub.ts). */
export function tailLog(file: string, count: number): LogTail {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `log file ${file} cannot be read (${code}): check --log`, {
      cause: err,
    });
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, MAX_READ_BYTES);
    const start = size - length;
    const buf = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buf, read, length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    // A PEM block spans lines: it goes before the text is split.
    let lines = scrubPemBlocks(buf.subarray(0, read).toString('utf8')).split('\n');
    // A read that starts mid-file starts mid-line: drop the fragment.
    if (start > 0) lines = lines.slice(1);
    if (lines.at(-1) === '') lines.pop();
    const last = lines.slice(-Math.max(0, count));
    return { file, lines: last.map(scrubLogLine), truncated: start > 0 || lines.length > last.length };
  } finally {
    closeSync(fd);
  }
}
