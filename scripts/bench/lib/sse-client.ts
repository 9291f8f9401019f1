import { request } from 'undici';
import { nowMs } from './stats.js';

export interface SseEvent {
  /** The SSE `event:` name, e.g. transaction.updated. */
  type: string;
  /** The bus event's `data` (JSON-parsed), e.g. { clientTransactionId, status }. */
  data: Record<string, unknown>;
  /** nowMs() when the client read it. */
  at: number;
}

interface Waiter {
  match: (e: SseEvent) => boolean;
  resolve: (e: SseEvent) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * A counter-page-like client of GET /api/v1/events: reads the stream, timestamps each event
 * as it arrives and lets a bench wait for one. With `keep: false` it only drains (long
 * runs, where nothing is waited for and nothing may pile up).
 */
export class SseClient {
  private readonly events: SseEvent[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly abort = new AbortController();
  private reading: Promise<void> = Promise.resolve();
  received = 0;

  private constructor(private readonly keep: boolean) {}

  static async connect(url: string, localToken: string, opts: { keep?: boolean } = {}): Promise<SseClient> {
    const client = new SseClient(opts.keep ?? true);
    const res = await request(`${url}/api/v1/events`, {
      headers: { authorization: `Bearer ${localToken}`, accept: 'text/event-stream' },
      signal: client.abort.signal,
      bodyTimeout: 0,
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`GET /api/v1/events answered ${res.statusCode}`);
    }
    client.reading = client.read(res.body);
    return client;
  }

  private async read(body: AsyncIterable<Buffer | string>): Promise<void> {
    let pending = '';
    try {
      for await (const chunk of body) {
        pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          this.onBlock(block);
        }
      }
    } catch {
      // Closed by close(): the stream ends here.
    }
  }

  private onBlock(block: string): void {
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) type = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    // Bus events arrive whole ({seq, type, at, data}); the hello event is its payload only.
    const payload = typeof parsed === 'object' && parsed !== null && 'data' in parsed ? parsed.data : parsed;
    const event: SseEvent = { type, data: (payload ?? {}) as Record<string, unknown>, at: nowMs() };
    this.received++;
    for (const w of this.waiters) {
      if (w.match(event)) {
        this.waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(event);
        return;
      }
    }
    if (this.keep) this.events.push(event);
  }

  /** The first event (already received and not yet taken, or still to come) that matches; taken from the buffer. */
  waitFor(match: (e: SseEvent) => boolean, timeoutMs = 30_000): Promise<SseEvent> {
    const i = this.events.findIndex(match);
    if (i >= 0) return Promise.resolve(this.events.splice(i, 1)[0] as SseEvent);
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        match,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(w);
          reject(new Error(`no matching SSE event within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.add(w);
    });
  }

  /** Drops buffered events (between measurements). */
  clear(): void {
    this.events.length = 0;
  }

  async close(): Promise<void> {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error('SSE client closed'));
    }
    this.waiters.clear();
    this.abort.abort();
    await this.reading;
  }
}
