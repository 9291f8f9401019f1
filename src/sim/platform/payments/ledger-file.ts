import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { AgentError, ErrorCodes } from '../../../core/index.js';
import { ledgerStateSchema, type LedgerState } from './ledger-state.js';

/**
 * The demo platform's ledger file (docs/demo-platform.md, "Demo platform", ledger file): one
 * JSON document, replaced whole and atomically (written to `<file>.tmp`, flushed to disk,
 * renamed over the old one, the directory flushed), so a crash leaves the previous state or
 * the new one, never a mix. Written only when the state changed, before the platform's
 * answer leaves. Mode 0600 like everything in the data directory.
 */
export class LedgerFile {
  private last: string | undefined;

  constructor(
    readonly path: string,
    private readonly log: Logger,
  ) {}

  /** The state of the last run; undefined when there is none. A damaged file stops the start (it is the demo's only record of what was charged). */
  load(): LedgerState | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `demo platform: cannot read its ledger ${this.path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        { cause: err },
      );
    }
    let parsed: LedgerState;
    try {
      parsed = ledgerStateSchema.parse(JSON.parse(text));
    } catch (err) {
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `demo platform: its ledger ${this.path} is damaged; move it away to start the demo platform empty (earlier demo sales are then unknown to it)`,
        { cause: err },
      );
    }
    this.last = text;
    return parsed;
  }

  /** Writes `state` when it differs from what the file holds. */
  save(state: LedgerState): void {
    const text = JSON.stringify(state);
    if (text === this.last) return;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    syncDirectory(dirname(this.path));
    this.last = text;
    this.log.debug(
      { file: this.path, transactions: state.transactions.length, ledger: state.ledger.length },
      'demo platform ledger written',
    );
  }
}

/** The rename is durable only once the directory is flushed too. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
