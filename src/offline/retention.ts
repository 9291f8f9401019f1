import type { Database } from 'better-sqlite3';
import type { RetentionPartner } from '../payments/index.js';
import { hasOfflineSchema } from './schema.js';

/** Reads this many ids per statement (SQLite's bound parameters stay far below its limit). */
const CHUNK = 200;

function chunks(ids: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(ids.slice(i, i + CHUNK));
  return out;
}

/**
 * The offline queue's part in journal retention (docs/journal.md, "Retention"): an item goes
 * with its sale only once `uploaded`. A sale whose item is queued, uploading, needing
 * attention or declined after upload is kept, however old: the item is what the uploader
 * and staff still act on. `db` is the connection of the journal's file, so the removal runs
 * inside the pruner's batch transaction.
 */
export function offlineRetention(db: Database): RetentionPartner {
  return {
    keeps(saleIds: readonly string[]): ReadonlySet<string> {
      const kept = new Set<string>();
      if (!hasOfflineSchema(db)) return kept;
      for (const ids of chunks(saleIds)) {
        const rows = db
          .prepare(
            `SELECT client_id FROM offline_queue WHERE client_id IN (${ids.map(() => '?').join(', ')}) AND state <> 'uploaded'`,
          )
          .all(...ids) as Array<{ client_id: string }>;
        for (const r of rows) kept.add(r.client_id);
      }
      return kept;
    },
    remove(saleIds: readonly string[]): number {
      if (!hasOfflineSchema(db)) return 0;
      let n = 0;
      for (const ids of chunks(saleIds)) {
        n += db
          .prepare(
            `DELETE FROM offline_queue WHERE client_id IN (${ids.map(() => '?').join(', ')}) AND state = 'uploaded'`,
          )
          .run(...ids).changes;
      }
      return n;
    },
  };
}
