import { sessionEnded } from './session.js';
import type { BusEvent, EventStreamHello } from './types.js';

export interface EventStreamHandlers {
  onEvent(event: BusEvent): void;
  /** Missed events are gone (or the agent restarted): reload everything. */
  onResync(): void;
  onConnection(connected: boolean): void;
}

/**
 * Server-Sent Events read with fetch (the session cookie goes with it), so that a 401 is
 * seen and ends the session on the page. Reconnects after a pause with Last-Event-ID, as
 * EventSource would.
 */
export class EventStream {
  private lastId: string | undefined;
  private run: string | undefined;
  private controller: AbortController | undefined;
  private stopped = false;

  constructor(private readonly handlers: EventStreamHandlers) {}

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.connect();
      } catch {
        // Connection refused or cut: reconnect below.
      }
      this.handlers.onConnection(false);
      if (this.stopped) return;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }

  private async connect(): Promise<void> {
    this.controller = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.lastId !== undefined) headers['last-event-id'] = this.lastId;
    const res = await fetch('/api/v1/events', {
      headers,
      signal: this.controller.signal,
      cache: 'no-store',
      credentials: 'same-origin',
    });
    if (res.status === 401) {
      this.stopped = true;
      sessionEnded();
    }
    if (!res.ok || res.body === null) throw new Error(`events: HTTP ${res.status}`);
    this.handlers.onConnection(true);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      let idx: number;
      while ((idx = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        this.dispatch(block);
      }
    }
  }

  private dispatch(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (id !== undefined) this.lastId = id;
    if (data.length === 0) return;
    let payload: unknown;
    try {
      payload = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    if (event === 'hello') {
      const run = (payload as Partial<EventStreamHello>).run;
      // A new agent run numbers its events from 1 again: what we hold is stale.
      if (this.run !== undefined && run !== this.run) {
        this.lastId = undefined;
        this.handlers.onResync();
      }
      this.run = run;
      return;
    }
    if (event === 'resync') {
      this.handlers.onResync();
      return;
    }
    this.handlers.onEvent(payload as BusEvent);
  }
}
