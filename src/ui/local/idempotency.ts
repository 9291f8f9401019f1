import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AgentError, ErrorCodes, isAgentError } from '../../core/index.js';
import type { IdempotencyRecord } from '../../payments/index.js';
import { httpStatusOf } from '../shared/index.js';
import { readRawBody } from './http-io.js';
import type { JsonResult } from './router.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer repeated from the first request with the same key. */
export const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';
/** How long a key is kept (docs/local-api.md, "Idempotency"): a register retries within minutes, never days. */
export const IDEMPOTENCY_RETENTION_MS = 48 * 3_600_000;
/** Printable ASCII without spaces, as UUIDs and ULIDs are; 1 to 128 characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** What the key table does (src/payments/journal/idempotency-keys.ts implements it on the journal's SQLite). */
export interface IdempotencyStore {
  get(scope: string, key: string): IdempotencyRecord | undefined;
  claim(scope: string, key: string, requestHash: string, run: string): boolean;
  complete(scope: string, key: string, answer: { status: number; answer: string; clientTransactionId?: string }): void;
  release(scope: string, key: string): void;
}

/** Kept in memory only: for a local API built without a journal (tests of other parts); the agent always passes the journal's. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();
  get(scope: string, key: string): IdempotencyRecord | undefined {
    return this.records.get(`${scope}\0${key}`);
  }
  claim(scope: string, key: string, requestHash: string, run: string): boolean {
    if (this.records.has(`${scope}\0${key}`)) return false;
    this.records.set(`${scope}\0${key}`, { scope, key, requestHash, run, createdAt: new Date().toISOString() });
    return true;
  }
  complete(scope: string, key: string, answer: { status: number; answer: string; clientTransactionId?: string }): void {
    const r = this.records.get(`${scope}\0${key}`);
    if (r !== undefined) this.records.set(`${scope}\0${key}`, { ...r, ...answer });
  }
  release(scope: string, key: string): void {
    this.records.delete(`${scope}\0${key}`);
  }
}

/** JSON with its object keys sorted, so that the same body hashes the same however it is spaced or ordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function requestHash(method: string, target: string, body: Buffer): string {
  const text = body.toString('utf8');
  let normal = text;
  try {
    normal = text.trim() === '' ? '{}' : canonical(JSON.parse(text));
  } catch {
    // Not JSON: the route refuses it; hashed as sent.
  }
  return createHash('sha256').update(`${method} ${target}\n${normal}`).digest('hex');
}

/**
 * An error answer is kept for repeats only when the outcome may be unknown (a gateway
 * error or timeout, an internal error): running the request again could then charge or
 * refund twice. A refusal (4xx) or "not available now" (503) did nothing, so the key is
 * freed and a repeat runs the request again.
 */
function keepsError(status: number): boolean {
  return status >= 500 && status !== 503;
}

function transactionIdOf(body: unknown): string | undefined {
  const t = (body as { transaction?: { clientTransactionId?: unknown } } | null)?.transaction;
  return typeof t?.clientTransactionId === 'string' ? t.clientTransactionId : undefined;
}

export interface IdempotencyDeps {
  store: IdempotencyStore;
  /** This agent run: a claim of another run that has no answer never finished. */
  run: string;
  /** The current answer for a transaction a repeat names (`{ transaction }`). */
  transaction(clientTransactionId: string): Promise<unknown>;
}

/**
 * Idempotency-Key on every write (docs/local-api.md, "Idempotency"): the first request
 * with a key runs and its answer is kept (a transaction's answer as its id, so a repeat
 * answers the transaction's current state); a repeat with the same request answers that;
 * another request under the same key is refused with 409. A repeat arriving while the
 * first still runs waits for it, so two requests never both run. Keys are per caller scope.
 */
export class Idempotency {
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly deps: IdempotencyDeps) {}

  /** The key of a write request, or undefined (no header, or not a write). */
  static keyOf(req: IncomingMessage): string | undefined {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'PUT') return undefined;
    const raw = req.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return undefined;
    const key = Array.isArray(raw) ? raw.join(', ') : raw;
    if (!KEY_PATTERN.test(key)) {
      throw new AgentError(
        ErrorCodes.API_BAD_REQUEST,
        'Idempotency-Key must be 1 to 128 printable characters without spaces (a UUID is a good key), given once',
      );
    }
    return key;
  }

  async handle(
    req: IncomingMessage,
    scope: string,
    key: string,
    target: string,
    run: () => Promise<JsonResult | undefined>,
  ): Promise<JsonResult | undefined> {
    const hash = requestHash(req.method ?? 'POST', target, await readRawBody(req));
    const slot = `${scope}\0${key}`;
    for (;;) {
      const first = this.running.get(slot);
      if (first !== undefined) {
        await first;
        continue;
      }
      const kept = this.deps.store.get(scope, key);
      if (kept !== undefined) return this.repeat(kept, hash);
      if (!this.deps.store.claim(scope, key, hash, this.deps.run)) continue;
      let finish = (): void => {};
      this.running.set(
        slot,
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
      );
      try {
        return await this.first(scope, key, run);
      } finally {
        this.running.delete(slot);
        finish();
      }
    }
  }

  private async first(
    scope: string,
    key: string,
    run: () => Promise<JsonResult | undefined>,
  ): Promise<JsonResult | undefined> {
    let result: JsonResult | undefined;
    try {
      result = await run();
    } catch (err) {
      const code = isAgentError(err) ? err.code : ErrorCodes.INTERNAL;
      const status = httpStatusOf(code);
      if (keepsError(status)) {
        const message = isAgentError(err) ? err.message : 'internal error; the agent log has the details';
        this.deps.store.complete(scope, key, { status, answer: JSON.stringify({ error: { code, message } }) });
      } else {
        this.deps.store.release(scope, key);
      }
      throw err;
    }
    if (result === undefined) {
      this.deps.store.release(scope, key);
      return result;
    }
    const id = transactionIdOf(result.body);
    this.deps.store.complete(scope, key, {
      status: result.status,
      answer: JSON.stringify(result.body),
      ...(id !== undefined ? { clientTransactionId: id } : {}),
    });
    return result;
  }

  private async repeat(kept: IdempotencyRecord, hash: string): Promise<JsonResult> {
    if (kept.requestHash !== hash) {
      throw new AgentError(
        ErrorCodes.API_IDEMPOTENCY_CONFLICT,
        'this Idempotency-Key was used for another request (another path or body): use a new key for a new request, or repeat the first request exactly',
      );
    }
    if ((kept.status === undefined || kept.answer === undefined) && kept.run === this.deps.run) {
      // Another listener of this run holds it (never expected with one Idempotency per agent).
      throw new AgentError(
        ErrorCodes.API_IDEMPOTENCY_CONFLICT,
        'the first request with this Idempotency-Key is still running: repeat it in a moment',
      );
    }
    if (kept.status === undefined || kept.answer === undefined) {
      // Claimed by an earlier run that stopped before answering: whatever it did is in the journal.
      throw new AgentError(
        ErrorCodes.API_IDEMPOTENCY_CONFLICT,
        'the first request with this Idempotency-Key did not finish before the agent restarted, so its outcome is unknown here: look the transaction up (GET /api/v1/transactions?reference=...) before trying again with a new key',
      );
    }
    if (kept.clientTransactionId !== undefined) {
      try {
        return { status: kept.status, body: await this.deps.transaction(kept.clientTransactionId), replayed: true };
      } catch {
        // The row is gone (never expected): the answer as first sent.
      }
    }
    return { status: kept.status, body: JSON.parse(kept.answer) as unknown, replayed: true };
  }
}
