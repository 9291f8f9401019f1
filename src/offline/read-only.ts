import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AgentError, ErrorCodes } from '../core/index.js';
import { checkJournal, journalRefusal, JOURNAL_FILE } from '../payments/index.js';
import { OfflineQueue } from './queue.js';

export interface ReadOnlyQueue {
  queue: OfflineQueue;
  file: string;
  close(): void;
}

/**
 * Opens the queue of `dataDir` read-only, for the CLI (commands open the database
 * read-only or talk to the running agent: docs/operations.md, "CLI commands"). Never
 * creates or changes the file.
 */
export function openQueueReadOnly(dataDir: string, fileName: string = JOURNAL_FILE): ReadOnlyQueue {
  const file = join(dataDir, fileName);
  if (!existsSync(file)) {
    throw new AgentError(
      ErrorCodes.JOURNAL_MISSING,
      `no journal at ${file}: the agent has not run with this data directory (check dataDir or --data-dir)`,
    );
  }
  // Header, size and schema (not the page walk: that is `journal check`): a damaged or
  // emptied journal is named with what to do instead of an SQLite error.
  const check = checkJournal(file, { maxCheckBytes: 0 });
  if (check.state === 'damaged' || check.state === 'emptied') throw journalRefusal(check);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
  } catch (err) {
    // A damaged journal names itself and the command that tells more (docs/operations.md, "Troubleshooting").
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) {
      throw new AgentError(
        ErrorCodes.JOURNAL_DAMAGED,
        `cannot read the journal ${file}: ${(err as Error).message}; run \`terminal-agent journal check\``,
        { cause: err },
      );
    }
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `cannot open ${file} read-only: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return { queue: new OfflineQueue(db), file, close: () => db.close() };
}
