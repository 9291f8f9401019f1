import type { ServerResponse } from 'node:http';
import type { Logger } from '../../core/index.js';
import type { EventBus, AgentEvent } from '../../events/index.js';
import { baseHeaders } from './http-io.js';
import type { ApiEvent, ApiEventStreamHello, ApiEventStreamResync } from '../shared/index.js';

export interface SseHubOptions {
  bus: EventBus;
  log: Logger;
  /** Identifies this agent run: sequence numbers restart with each run. */
  runId: string;
  /** Events kept for clients that reconnect with Last-Event-ID. */
  capacity?: number;
  heartbeatMs?: number;
  /** A client this far behind (bytes not yet sent) is dropped; it reconnects and resumes. */
  maxBufferedBytes?: number;
}

/** Which bus events one stream is sent. */
export type EventFilter = (event: AgentEvent) => boolean;

/**
 * How one caller's streams number the events they are sent (a paired register's: its own
 * events 1, 2, 3, ..., so ids tell nothing of others' traffic; docs/registers.md). Numbers
 * are given in the order of the bus's sequence and kept for the run, so a reconnect with
 * Last-Event-ID resumes where it left.
 */
export interface EventNumbering {
  /** The caller's number of an event it is sent (given at the first call, the same after). */
  numberOf(seq: number): number;
  /** The bus sequence of the caller's number `n`; undefined once forgotten (or never given). */
  seqOf(n: number): number | undefined;
  /** The last number given (0 before any). */
  last(): number;
}

interface Stream {
  filter: EventFilter;
  numbering?: EventNumbering;
}

const everyEvent: EventFilter = () => true;

/**
 * Server-Sent Events fed from the bus alone (docs/counter-page.md, "Local API and counter
 * page"). Each bus event is sent with
 * `id: <seq>`; a client reconnecting with Last-Event-ID gets what it missed from a bounded
 * ring buffer, or a `resync` event telling it to reload its state when the gap is gone.
 */
export class SseHub {
  private readonly ring: AgentEvent[] = [];
  /** Each stream with the events it may see (a paired register: only its own transactions) and how it numbers them. */
  private readonly clients = new Map<ServerResponse, Stream>();
  private readonly capacity: number;
  private readonly heartbeatMs: number;
  private readonly maxBufferedBytes: number;
  private readonly log: Logger;
  private unsubscribe: (() => void) | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly opts: SseHubOptions) {
    this.capacity = opts.capacity ?? 1_000;
    this.heartbeatMs = opts.heartbeatMs ?? 15_000;
    this.maxBufferedBytes = opts.maxBufferedBytes ?? 1024 * 1024;
    this.log = opts.log.child({ component: 'sse' });
  }

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.opts.bus.subscribe((event) => this.onEvent(event));
    this.heartbeat = setInterval(() => this.broadcast(': ping\n\n'), this.heartbeatMs);
    this.heartbeat.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const res of this.clients.keys()) res.end();
    this.clients.clear();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /**
   * Takes over the response: headers, hello, the missed events or resync, then live events.
   * With a `numbering`, ids (and each event's `seq`, the hello's `lastSeq`) are the caller's own.
   */
  connect(
    res: ServerResponse,
    lastEventId: string | undefined,
    filter: EventFilter = everyEvent,
    numbering?: EventNumbering,
  ): void {
    res.writeHead(200, {
      ...baseHeaders(),
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const stream: Stream = numbering !== undefined ? { filter, numbering } : { filter };
    const lastSeq = numbering?.last() ?? this.opts.bus.lastSeq;
    const hello: ApiEventStreamHello = { run: this.opts.runId, lastSeq };
    let out = `retry: 2000\nevent: hello\ndata: ${JSON.stringify(hello)}\n\n`;
    if (lastEventId !== undefined && lastEventId.trim() !== '') {
      const missed = this.missedSince(lastEventId.trim(), numbering);
      if (missed === 'resync') {
        // The id lets the next reconnect resume from here once the client has reloaded.
        const resync: ApiEventStreamResync = {
          lastSeq,
          reason: 'events missed are no longer buffered; reload the state',
        };
        out += `id: ${lastSeq}\nevent: resync\ndata: ${JSON.stringify(resync)}\n\n`;
      } else {
        for (const e of missed) if (filter(e)) out += this.format(e, numbering);
      }
    }
    res.write(out);
    this.clients.set(res, stream);
    res.on('close', () => this.clients.delete(res));
  }

  private missedSince(lastEventId: string, numbering: EventNumbering | undefined): AgentEvent[] | 'resync' {
    if (!/^\d{1,15}$/.test(lastEventId)) return 'resync';
    if (numbering !== undefined) {
      // The caller's number: what followed its event on the bus (the filter keeps the caller's own).
      const n = Number(lastEventId);
      if (n > numbering.last()) return 'resync';
      const seq = n === 0 ? 0 : numbering.seqOf(n);
      const oldest = this.ring[0]?.seq;
      if (seq === undefined || oldest === undefined || seq + 1 < oldest) return 'resync';
      return this.ring.filter((e) => e.seq > seq);
    }
    const n = Number(lastEventId);
    const last = this.opts.bus.lastSeq;
    if (n === last) return [];
    // Ahead of us: the agent restarted and numbering began again.
    if (n > last) return 'resync';
    const oldest = this.ring[0]?.seq;
    if (oldest === undefined || n + 1 < oldest) return 'resync';
    return this.ring.filter((e) => e.seq > n);
  }

  private format(event: AgentEvent, numbering?: EventNumbering): string {
    // Typed as the wire event the page reads: the bus event must fit it.
    const wire: ApiEvent = numbering === undefined ? event : { ...event, seq: numbering.numberOf(event.seq) };
    return `id: ${wire.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(wire)}\n\n`;
  }

  private onEvent(event: AgentEvent): void {
    this.ring.push(event);
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
    // Formatted only when a page listens: a sale's events on a terminal with no page open cost nothing more.
    if (this.clients.size > 0) this.broadcast(this.format(event), event);
  }

  /** Sends `text` to every stream, or, for an event, to the streams whose filter lets it through (numbered as each caller numbers). */
  private broadcast(text: string, event?: AgentEvent): void {
    for (const [res, { filter, numbering }] of this.clients) {
      if (event !== undefined && !filter(event)) continue;
      const own = event !== undefined && numbering !== undefined ? this.format(event, numbering) : text;
      if (res.writableLength > this.maxBufferedBytes) {
        this.log.warn(
          { buffered: res.writableLength },
          'SSE client too slow; disconnecting it (it resumes with Last-Event-ID)',
        );
        this.clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(own);
    }
  }
}
