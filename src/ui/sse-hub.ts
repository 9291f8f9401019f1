import type { ServerResponse } from 'node:http';
import type { Logger } from '../core/index.js';
import type { EventBus, AgentEvent } from '../events/index.js';
import { baseHeaders } from './http-io.js';
import type { ApiEvent, ApiEventStreamHello, ApiEventStreamResync } from './wire-types.js';

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

const everyEvent: EventFilter = () => true;

/**
 * Server-Sent Events fed from the bus alone (docs/architecture.md, "Local API and counter
 * page"). Each bus event is sent with
 * `id: <seq>`; a client reconnecting with Last-Event-ID gets what it missed from a bounded
 * ring buffer, or a `resync` event telling it to reload its state when the gap is gone.
 */
export class SseHub {
  private readonly ring: AgentEvent[] = [];
  /** Each stream with the events it may see (a paired register: only its own transactions). */
  private readonly clients = new Map<ServerResponse, EventFilter>();
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

  /** Takes over the response: headers, hello, the missed events or resync, then live events. */
  connect(res: ServerResponse, lastEventId: string | undefined, filter: EventFilter = everyEvent): void {
    res.writeHead(200, {
      ...baseHeaders(),
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const lastSeq = this.opts.bus.lastSeq;
    const hello: ApiEventStreamHello = { run: this.opts.runId, lastSeq };
    let out = `retry: 2000\nevent: hello\ndata: ${JSON.stringify(hello)}\n\n`;
    if (lastEventId !== undefined && lastEventId.trim() !== '') {
      const missed = this.missedSince(lastEventId.trim());
      if (missed === 'resync') {
        // The id lets the next reconnect resume from here once the client has reloaded.
        const resync: ApiEventStreamResync = { lastSeq, reason: 'events missed are no longer buffered; reload the state' };
        out += `id: ${lastSeq}\nevent: resync\ndata: ${JSON.stringify(resync)}\n\n`;
      } else {
        for (const e of missed) if (filter(e)) out += this.format(e);
      }
    }
    res.write(out);
    this.clients.set(res, filter);
    res.on('close', () => this.clients.delete(res));
  }

  private missedSince(lastEventId: string): AgentEvent[] | 'resync' {
    if (!/^\d{1,15}$/.test(lastEventId)) return 'resync';
    const n = Number(lastEventId);
    const last = this.opts.bus.lastSeq;
    if (n === last) return [];
    // Ahead of us: the agent restarted and numbering began again.
    if (n > last) return 'resync';
    const oldest = this.ring[0]?.seq;
    if (oldest === undefined || n + 1 < oldest) return 'resync';
    return this.ring.filter((e) => e.seq > n);
  }

  private format(event: AgentEvent): string {
    // Typed as the wire event the page reads: the bus event must fit it.
    const wire: ApiEvent = event;
    return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(wire)}\n\n`;
  }

  private onEvent(event: AgentEvent): void {
    this.ring.push(event);
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
    // Formatted only when a page listens: a sale's events on a terminal with no page open cost nothing more.
    if (this.clients.size > 0) this.broadcast(this.format(event), event);
  }

  /** Sends `text` to every stream, or, for an event, to the streams whose filter lets it through. */
  private broadcast(text: string, event?: AgentEvent): void {
    for (const [res, filter] of this.clients) {
      if (event !== undefined && !filter(event)) continue;
      if (res.writableLength > this.maxBufferedBytes) {
        this.log.warn({ buffered: res.writableLength }, 'SSE client too slow; disconnecting it (it resumes with Last-Event-ID)');
        this.clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(text);
    }
  }
}
