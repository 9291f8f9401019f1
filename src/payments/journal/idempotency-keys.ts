import type { Database } from 'better-sqlite3';
import type { TimeSource } from '../../core/index.js';

/**
 * One idempotency key as kept (docs/local-api.md, "Idempotency"): who sent it (`scope`),
 * the hash of the request it came with, the agent run that claimed it, and once answered
 * either the answer (status and JSON text) or the transaction the request made.
 */
export interface IdempotencyRecord {
  scope: string;
  key: string;
  requestHash: string;
  /** The agent run (process) that claimed the key: a claim of an earlier run never finished. */
  run: string;
  status?: number;
  /** The answer's JSON text as first sent. */
  answer?: string;
  /** The transaction the request made or acted on: a repeat answers its current state. */
  clientTransactionId?: string;
  createdAt: string;
}

interface KeyRow {
  scope: string;
  key: string;
  request_hash: string;
  run: string;
  status: number | null;
  answer: string | null;
  client_id: string | null;
  created_at: string;
}

function fromRow(r: KeyRow): IdempotencyRecord {
  return {
    scope: r.scope,
    key: r.key,
    requestHash: r.request_hash,
    run: r.run,
    ...(r.status !== null ? { status: r.status } : {}),
    ...(r.answer !== null ? { answer: r.answer } : {}),
    ...(r.client_id !== null ? { clientTransactionId: r.client_id } : {}),
    createdAt: r.created_at,
  };
}

/**
 * The local API's idempotency keys in the journal's SQLite file (migration 5), so that a
 * repeat after an agent restart still finds the first answer. Keys older than the
 * retention are deleted whenever a key is claimed.
 */
export class IdempotencyKeys {
  constructor(
    private readonly db: Database,
    private readonly clock: Pick<TimeSource, 'wall'>,
    readonly retentionMs: number,
  ) {}

  private now(): string {
    return new Date(this.clock.wall()).toISOString();
  }

  /** The key as kept, if it is younger than the retention. */
  get(scope: string, key: string): IdempotencyRecord | undefined {
    const cutoff = new Date(this.clock.wall() - this.retentionMs).toISOString();
    const r = this.db
      .prepare<[string, string, string], KeyRow>(
        'SELECT * FROM idempotency_keys WHERE scope = ? AND key = ? AND created_at >= ?',
      )
      .get(scope, key, cutoff);
    return r === undefined ? undefined : fromRow(r);
  }

  /**
   * Claims the key for a request (first use): true when claimed, false when the key is kept
   * already (then `get` says for what). Expired keys are deleted first.
   */
  claim(scope: string, key: string, requestHash: string, run: string): boolean {
    const cutoff = new Date(this.clock.wall() - this.retentionMs).toISOString();
    return this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(cutoff);
        const result = this.db
          .prepare(
            'INSERT OR IGNORE INTO idempotency_keys (scope, key, request_hash, run, created_at) VALUES (?, ?, ?, ?, ?)',
          )
          .run(scope, key, requestHash, run, this.now());
        return result.changes === 1;
      })
      .immediate();
  }

  /** The request's answer (and the transaction it made or acted on), kept for repeats. */
  complete(scope: string, key: string, answer: { status: number; answer: string; clientTransactionId?: string }): void {
    this.db
      .prepare('UPDATE idempotency_keys SET status = ?, answer = ?, client_id = ? WHERE scope = ? AND key = ?')
      .run(answer.status, answer.answer, answer.clientTransactionId ?? null, scope, key);
  }

  /** Frees the key: the request was refused before it did anything, so a repeat runs it again. */
  release(scope: string, key: string): void {
    this.db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?').run(scope, key);
  }
}
