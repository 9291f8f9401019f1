/**
 * An example cash register (ECR) on the terminal's local API (docs/local-api.md). It uses
 * nothing of the agent's code, only Node 22's fetch, as a register written in any language
 * would:
 *
 * 1. follows the agent's events (GET /api/v1/events, Server-Sent Events), resuming with
 *    Last-Event-ID after a dropped connection;
 * 2. starts a sale (POST /api/v1/sales) with an Idempotency-Key and its own reference;
 * 3. when the answer is lost (connection dropped, timeout, 5xx), sends the same request
 *    with the same key again: the agent answers the same sale, never a second one; when
 *    the agent says the first request's outcome is unknown, it looks the sale up by its
 *    reference (GET /api/v1/transactions?reference=...);
 * 4. waits for the sale's final state and prints it.
 *
 * Run: node dist/examples/register.js --amount 12.34 --reference "Till 1 / 0001"
 *        [--url http://127.0.0.1:8080] [--token-file /var/lib/terminal-agent/local-api.token]
 *        [--currency EUR] [--method card]
 * The token may also come in TERMINAL_AGENT_TOKEN. Exit status: 0 approved (or stored
 * offline), 2 not approved, 1 error.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The fields of a transaction this register reads (docs/openapi.json, Transaction). */
export interface RegisterTransaction {
  clientTransactionId: string;
  state: string;
  amountText: string;
  reference?: string;
  maskedPan?: string;
  message?: string;
}

export interface RegisterOptions {
  url: string;
  token: string;
  amount: string;
  reference: string;
  currency?: string;
  method?: string;
  /** Default: a new UUID for this sale. Keep it with the sale until its answer is in. */
  idempotencyKey?: string;
  /** How often the sale request is sent at most (the first and the repeats). */
  attempts?: number;
  /** How long to wait for the final state. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

const FINAL = new Set(['approved', 'declined', 'failed', 'cancelled', 'reversed', 'needs_attention', 'offline_stored']);

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {}
  get errorCode(): string | undefined {
    const e = this.body.error as { code?: string } | undefined;
    return e?.code;
  }
  get errorMessage(): string {
    const e = this.body.error as { message?: string } | undefined;
    return e?.message ?? `HTTP ${this.status}`;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The latest state of each transaction seen on the event stream, and who waits for which. */
class EventFollower {
  private readonly states = new Map<string, string>();
  private readonly waiters = new Map<string, () => void>();
  private lastEventId: string | undefined;
  private readonly abort = new AbortController();
  /** Called after a reconnect or a `resync`: events may be missing, so ask for the state. */
  onGap: () => void = () => {};

  constructor(
    private readonly opts: RegisterOptions,
    private readonly log: (line: string) => void,
  ) {}

  stateOf(id: string): string | undefined {
    return this.states.get(id);
  }

  changed(id: string, state: string): void {
    this.states.set(id, state);
    this.waiters.get(id)?.();
  }

  waitForChange(id: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(id, resolve));
  }

  start(): Promise<void> {
    return new Promise((ready) => {
      void this.loop(ready);
    });
  }

  stop(): void {
    this.abort.abort();
  }

  private async loop(ready: () => void): Promise<void> {
    let first = true;
    while (!this.abort.signal.aborted) {
      try {
        const res = await fetch(`${this.opts.url}/api/v1/events`, {
          headers: { authorization: `Bearer ${this.opts.token}`, accept: 'text/event-stream', ...(this.lastEventId !== undefined ? { 'last-event-id': this.lastEventId } : {}) },
          signal: this.abort.signal,
        });
        if (res.status !== 200 || res.body === null) throw new Error(`events: HTTP ${res.status}`);
        if (!first) {
          this.log(`events: resumed after event ${this.lastEventId ?? '(none)'}`);
          this.onGap();
        }
        first = false;
        ready();
        await this.read(res.body);
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.log(`events: connection lost (${(err as Error).message}); reconnecting`);
        ready();
      }
      await sleep(500);
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        this.message(block);
      }
    }
  }

  private message(block: string): void {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
    }
    if (fields.id !== undefined) this.lastEventId = fields.id;
    if (fields.event === 'resync') {
      this.onGap();
      return;
    }
    if (fields.event !== 'transaction.updated' || fields.data === undefined) return;
    const event = JSON.parse(fields.data) as { data?: { clientTransactionId?: string; status?: string } };
    const id = event.data?.clientTransactionId;
    const status = event.data?.status;
    if (typeof id === 'string' && typeof status === 'string') this.changed(id, status);
  }
}

async function api(opts: RegisterOptions, method: 'GET' | 'POST', path: string, body?: object, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const res = await fetch(`${opts.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${opts.token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return new HttpAnswer(res.status, text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
}

/** Sends the sale until an answer arrives, always with the same key and body. */
async function startSale(opts: RegisterOptions, key: string, log: (line: string) => void): Promise<RegisterTransaction> {
  const body = { method: opts.method ?? 'card', amount: opts.amount, ...(opts.currency !== undefined ? { currency: opts.currency } : {}), reference: opts.reference };
  const attempts = opts.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    let answer: HttpAnswer | undefined;
    try {
      answer = await api(opts, 'POST', '/api/v1/sales', body, { 'idempotency-key': key });
    } catch (err) {
      log(`sale: no answer (${(err as Error).message}); sending it again with the same Idempotency-Key`);
    }
    if (answer !== undefined) {
      if (answer.status === 202) return (answer.body as { transaction: RegisterTransaction }).transaction;
      if (answer.errorCode === 'API_IDEMPOTENCY_CONFLICT') {
        // The agent cannot tell what the first request did: the reference can.
        log(`sale: ${answer.errorMessage}`);
        const found = await findByReference(opts);
        if (found !== undefined) return found;
        throw new Error(`no sale with reference ${opts.reference}: start a new sale with a new key`);
      }
      // A refusal (4xx) is final: the sale did not start. A 5xx may be repeated with the key.
      if (answer.status < 500) throw new Error(`the sale was refused: ${answer.errorMessage} [${answer.errorCode ?? answer.status}]`);
      log(`sale: ${answer.errorMessage}; sending it again with the same Idempotency-Key`);
    }
    if (attempt >= attempts) {
      const found = await findByReference(opts).catch(() => undefined);
      if (found !== undefined) return found;
      throw new Error(`no answer after ${attempts} attempts; look for reference ${opts.reference} before selling again`);
    }
    await sleep(Math.min(4_000, 250 * 2 ** (attempt - 1)));
  }
}

async function findByReference(opts: RegisterOptions): Promise<RegisterTransaction | undefined> {
  const answer = await api(opts, 'GET', `/api/v1/transactions?reference=${encodeURIComponent(opts.reference)}`);
  const list = (answer.body as { transactions?: RegisterTransaction[] }).transactions ?? [];
  return list[0];
}

async function current(opts: RegisterOptions, id: string): Promise<RegisterTransaction> {
  const answer = await api(opts, 'GET', `/api/v1/transactions/${encodeURIComponent(id)}`);
  if (answer.status !== 200) throw new Error(`cannot read sale ${id}: ${answer.errorMessage}`);
  return (answer.body as { transaction: RegisterTransaction }).transaction;
}

/** Runs one sale as a register does; answers the sale in its final state. */
export async function runRegister(opts: RegisterOptions): Promise<RegisterTransaction> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const key = opts.idempotencyKey ?? randomUUID();
  const events = new EventFollower(opts, log);
  // Listen first, so that no update of the sale is missed.
  await events.start();
  try {
    const started = await startSale(opts, key, log);
    const id = started.clientTransactionId;
    log(`sale ${id} started (${started.state}), reference ${started.reference ?? '-'}`);
    let gap = false;
    events.onGap = () => {
      gap = true;
      events.changed(id, events.stateOf(id) ?? started.state);
    };
    events.changed(id, events.stateOf(id) ?? started.state);
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    let state = events.stateOf(id) ?? started.state;
    while (!FINAL.has(state)) {
      const change = events.waitForChange(id);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`sale ${id} is still ${state}: the agent goes on with it; look it up later by reference ${opts.reference}`);
      // A slow poll besides the events: a register never depends on one channel alone.
      await Promise.race([change, sleep(Math.min(left, 5_000))]);
      if (gap || !FINAL.has(events.stateOf(id) ?? state)) {
        gap = false;
        const now = await current(opts, id);
        events.changed(id, now.state);
      }
      state = events.stateOf(id) ?? state;
      if (!FINAL.has(state)) log(`sale ${id}: ${state}`);
    }
    return await current(opts, id);
  } finally {
    events.stop();
  }
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const tokenFile = argValue(args, '--token-file');
  const token = process.env.TERMINAL_AGENT_TOKEN ?? (tokenFile !== undefined ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  const amount = argValue(args, '--amount');
  const reference = argValue(args, '--reference');
  if (token === undefined || amount === undefined || reference === undefined) {
    process.stderr.write('usage: register --amount 12.34 --reference TEXT [--url URL] [--token-file FILE] [--currency EUR] [--method card]\n');
    return 64;
  }
  const currency = argValue(args, '--currency');
  const method = argValue(args, '--method');
  const sale = await runRegister({
    url: argValue(args, '--url') ?? 'http://127.0.0.1:8080',
    token,
    amount,
    reference,
    ...(currency !== undefined ? { currency } : {}),
    ...(method !== undefined ? { method } : {}),
  });
  process.stdout.write(`sale ${sale.clientTransactionId}: ${sale.state} ${sale.amountText}${sale.maskedPan !== undefined ? ` card ${sale.maskedPan}` : ''} reference ${sale.reference ?? '-'}${sale.message !== undefined ? ` (${sale.message})` : ''}\n`);
  return sale.state === 'approved' || sale.state === 'offline_stored' ? 0 : 2;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`register: ${(err as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
