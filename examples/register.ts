/**
 * An example cash register (ECR) on the terminal's API (docs/local-api.md,
 * docs/registers.md). It uses nothing of the agent's code, only Node and undici's fetch
 * (the fetch Node 22 ships, from the package, so that a pinned certificate can be passed),
 * as a register written in any language would:
 *
 * 1. follows the agent's events (GET /api/v1/events, Server-Sent Events), resuming with
 *    Last-Event-ID after a dropped connection;
 * 2. starts a sale (POST /api/v1/sales) with an Idempotency-Key and its own reference;
 * 3. when the answer is lost (connection dropped, timeout, 5xx), sends the same request
 *    with the same key again: the agent answers the same sale, never a second one; when
 *    the agent says the first request's outcome is unknown, it looks the sale up by its
 *    reference (GET /api/v1/transactions?reference=...);
 * 4. waits for the sale's final state, prints it and its receipt
 *    (GET /api/v1/transactions/{id}/receipt?format=text&width=32).
 *
 * Two ways to reach the terminal:
 * - on the terminal itself, the loopback local API with the per-install token:
 *     node dist/examples/register.js --amount 12.34 --reference "Till 1 / 0001"
 *       [--url http://127.0.0.1:8080] [--token-file /var/lib/terminal-agent/local-api.token]
 *   (the token may also come in TERMINAL_AGENT_TOKEN);
 * - from another machine of the store network, the terminal's store-network listener
 *   (docs/registers.md): pair once with the code and fingerprint the terminal shows, then sell
 *   with the pinned certificate and the register's own key:
 *     node dist/examples/register.js pair --url https://192.168.1.20:8444 \
 *       --fingerprint AB:CD:... --code "1234 5678" --name "Till 1" --register-file till1.json
 *     node dist/examples/register.js sale --register-file till1.json --amount 12.34 --reference "Till 1 / 0001"
 * Common options: [--currency EUR] [--method card]. Exit status: 0 approved (or stored
 * offline) or paired, 2 not approved, 1 error, 64 usage.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { fetch, type Agent } from 'undici';
import { loadPairing, pairRegister, pinnedDispatcher } from './register-pairing.js';

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
  /** The per-install token on loopback, or the register's API key on the store network. */
  token: string;
  /** The pinned certificate (PEM) of the store-network listener: the only one trusted. */
  ca?: string;
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

/** The sale in its final state, with its receipt as printer text when the agent keeps receipts. */
export type RegisterSale = RegisterTransaction & { receipt?: string };

/** The terminal refused the register's credentials: no repeat helps. */
class RefusedError extends Error {}

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

/** Where requests go and how: the options plus, on the store network, the pinned pool. */
interface Channel {
  opts: RegisterOptions;
  dispatcher?: Agent;
}

function send(
  ch: Channel,
  path: string,
  init: { method?: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) {
  return fetch(`${ch.opts.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ch.opts.token}`, ...init.headers },
    ...(ch.dispatcher !== undefined ? { dispatcher: ch.dispatcher } : {}),
  });
}

function refusal(status: number, body: Record<string, unknown>): RefusedError {
  const message = (body.error as { message?: string } | undefined)?.message ?? `HTTP ${status}`;
  return new RefusedError(`the terminal refused this register (${status}): ${message}`);
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

  private readonly channel: Channel;
  private readonly log: (line: string) => void;

  constructor(channel: Channel, log: (line: string) => void) {
    this.channel = channel;
    this.log = log;
  }

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

  /** Resolves once the stream is open (or was lost and is being reopened); rejects when the key is refused. */
  start(): Promise<void> {
    return new Promise((ready, refused) => {
      void this.loop(ready, refused);
    });
  }

  stop(): void {
    this.abort.abort();
  }

  private async loop(ready: () => void, refused: (err: Error) => void): Promise<void> {
    let first = true;
    while (!this.abort.signal.aborted) {
      try {
        const res = await send(this.channel, '/api/v1/events', {
          headers: {
            accept: 'text/event-stream',
            ...(this.lastEventId !== undefined ? { 'last-event-id': this.lastEventId } : {}),
          },
          signal: this.abort.signal,
        });
        if (res.status === 401 || res.status === 403) {
          const err = refusal(res.status, (await res.json().catch(() => ({}))) as Record<string, unknown>);
          // A revoked key is final: stop following; the sale's own requests say the same.
          this.log(`events: ${err.message}`);
          refused(err);
          return;
        }
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

async function api(
  ch: Channel,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const res = await send(ch, path, {
    method,
    headers: {
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  // Not paired, revoked, or the wrong token: repeating cannot help.
  if (res.status === 401 || res.status === 403) throw refusal(res.status, json);
  return new HttpAnswer(res.status, json);
}

/** Sends the sale until an answer arrives, always with the same key and body. */
async function startSale(ch: Channel, key: string, log: (line: string) => void): Promise<RegisterTransaction> {
  const { opts } = ch;
  const body = {
    method: opts.method ?? 'card',
    amount: opts.amount,
    ...(opts.currency !== undefined ? { currency: opts.currency } : {}),
    reference: opts.reference,
  };
  const attempts = opts.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    let answer: HttpAnswer | undefined;
    try {
      answer = await api(ch, 'POST', '/api/v1/sales', body, { 'idempotency-key': key });
    } catch (err) {
      if (err instanceof RefusedError) throw err;
      log(`sale: no answer (${(err as Error).message}); sending it again with the same Idempotency-Key`);
    }
    if (answer !== undefined) {
      if (answer.status === 202) return (answer.body as { transaction: RegisterTransaction }).transaction;
      if (answer.errorCode === 'API_IDEMPOTENCY_CONFLICT') {
        // The agent cannot tell what the first request did: the reference can.
        log(`sale: ${answer.errorMessage}`);
        const found = await findByReference(ch);
        if (found !== undefined) return found;
        throw new Error(`no sale with reference ${opts.reference}: start a new sale with a new key`);
      }
      // A refusal (4xx) is final: the sale did not start. A 5xx may be repeated with the key.
      if (answer.status < 500)
        throw new Error(`the sale was refused: ${answer.errorMessage} [${answer.errorCode ?? answer.status}]`);
      log(`sale: ${answer.errorMessage}; sending it again with the same Idempotency-Key`);
    }
    if (attempt >= attempts) {
      const found = await findByReference(ch).catch(() => undefined);
      if (found !== undefined) return found;
      throw new Error(
        `no answer after ${attempts} attempts; look for reference ${opts.reference} before selling again`,
      );
    }
    await sleep(Math.min(4_000, 250 * 2 ** (attempt - 1)));
  }
}

async function findByReference(ch: Channel): Promise<RegisterTransaction | undefined> {
  const answer = await api(ch, 'GET', `/api/v1/transactions?reference=${encodeURIComponent(ch.opts.reference)}`);
  const list = (answer.body as { transactions?: RegisterTransaction[] }).transactions ?? [];
  return list[0];
}

async function current(ch: Channel, id: string): Promise<RegisterTransaction> {
  const answer = await api(ch, 'GET', `/api/v1/transactions/${encodeURIComponent(id)}`);
  if (answer.status !== 200) throw new Error(`cannot read sale ${id}: ${answer.errorMessage}`);
  return (answer.body as { transaction: RegisterTransaction }).transaction;
}

/** The receipt as text for a 32-column printer; undefined when the agent keeps none. */
async function receipt(ch: Channel, id: string, log: (line: string) => void): Promise<string | undefined> {
  try {
    const res = await send(ch, `/api/v1/transactions/${encodeURIComponent(id)}/receipt?format=text&width=32`, {
      headers: { accept: 'text/plain' },
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (res.status === 200) return text;
    log(`receipt: HTTP ${res.status}; the sale stands, print it later`);
  } catch (err) {
    log(`receipt: ${(err as Error).message}; the sale stands, print it later`);
  }
  return undefined;
}

/** Runs one sale as a register does; answers the sale in its final state, with its receipt. */
export async function runRegister(opts: RegisterOptions): Promise<RegisterSale> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const key = opts.idempotencyKey ?? randomUUID();
  const ch: Channel = { opts, ...(opts.ca !== undefined ? { dispatcher: pinnedDispatcher(opts.ca) } : {}) };
  const events = new EventFollower(ch, log);
  try {
    // Listen first, so that no update of the sale is missed.
    await events.start();
    const started = await startSale(ch, key, log);
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
      if (left <= 0)
        throw new Error(
          `sale ${id} is still ${state}: the agent goes on with it; look it up later by reference ${opts.reference}`,
        );
      // A slow poll besides the events: a register never depends on one channel alone.
      await Promise.race([change, sleep(Math.min(left, 5_000))]);
      if (gap || !FINAL.has(events.stateOf(id) ?? state)) {
        gap = false;
        const now = await current(ch, id);
        events.changed(id, now.state);
      }
      state = events.stateOf(id) ?? state;
      if (!FINAL.has(state)) log(`sale ${id}: ${state}`);
    }
    const final = await current(ch, id);
    const text = await receipt(ch, id, log);
    return { ...final, ...(text !== undefined ? { receipt: text } : {}) };
  } finally {
    events.stop();
    await ch.dispatcher?.close();
  }
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

export interface RegisterIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const USAGE = `usage: register pair --url https://HOST:PORT --fingerprint FP --code CODE [--name NAME] [--register-file FILE]
       register sale --register-file FILE --amount 12.34 --reference TEXT [--currency EUR] [--method card]
       register [sale] --amount 12.34 --reference TEXT [--url URL] [--token-file FILE] [--currency EUR] [--method card]
`;

async function pair(args: string[], io: RegisterIo): Promise<number> {
  const url = argValue(args, '--url');
  const fingerprint = argValue(args, '--fingerprint');
  const code = argValue(args, '--code');
  if (url === undefined || fingerprint === undefined || code === undefined) {
    io.err(USAGE);
    return 64;
  }
  const file = argValue(args, '--register-file') ?? 'register.json';
  const paired = await pairRegister({ url, fingerprint, code, name: argValue(args, '--name') ?? 'Register', file });
  // The key is a secret: it goes to the file only, never to the screen.
  io.out(
    `paired as ${paired.register.name} (${paired.register.id}) with ${paired.url}; certificate ${paired.fingerprint} pinned; key and certificate kept in ${file} (mode 0600)\n`,
  );
  return 0;
}

async function sale(args: string[], io: RegisterIo): Promise<number> {
  const amount = argValue(args, '--amount');
  const reference = argValue(args, '--reference');
  const registerFile = argValue(args, '--register-file');
  const tokenFile = argValue(args, '--token-file');
  let where: { url: string; token: string; ca?: string } | undefined;
  if (registerFile !== undefined) {
    const p = loadPairing(registerFile);
    where = { url: p.url, token: p.apiKey, ca: p.certificate };
  } else {
    const token =
      process.env.TERMINAL_AGENT_TOKEN ??
      (tokenFile !== undefined ? readFileSync(tokenFile, 'utf8').trim() : undefined);
    if (token !== undefined) where = { url: argValue(args, '--url') ?? 'http://127.0.0.1:8080', token };
  }
  if (where === undefined || amount === undefined || reference === undefined) {
    io.err(USAGE);
    return 64;
  }
  const currency = argValue(args, '--currency');
  const method = argValue(args, '--method');
  const done = await runRegister({
    ...where,
    amount,
    reference,
    log: (line) => io.err(`${line}\n`),
    ...(currency !== undefined ? { currency } : {}),
    ...(method !== undefined ? { method } : {}),
  });
  io.out(
    `sale ${done.clientTransactionId}: ${done.state} ${done.amountText}${done.maskedPan !== undefined ? ` card ${done.maskedPan}` : ''} reference ${done.reference ?? '-'}${done.message !== undefined ? ` (${done.message})` : ''}\n`,
  );
  if (done.receipt !== undefined) io.out(`${done.receipt}${done.receipt.endsWith('\n') ? '' : '\n'}`);
  return done.state === 'approved' || done.state === 'offline_stored' ? 0 : 2;
}

/** The command line: `pair`, `sale` (the default). Errors become a message and status 1. */
export async function main(
  args: string[],
  io: RegisterIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === 'pair') return await pair(rest, io);
    return await sale(command === 'sale' ? rest : args, io);
  } catch (err) {
    io.err(`register: ${(err as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
