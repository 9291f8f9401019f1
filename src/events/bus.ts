import { systemClock, type TimeSource } from '../core/index.js';
import type { AgentEvent, AgentEventMap, AgentEventType } from './types.js';

type AnyListener = (event: AgentEvent) => void;

/**
 * The in-process typed event bus. Listeners are owned by whoever subscribed and removed
 * with the function subscribe returns; a throwing listener never stops the others.
 */
export class EventBus {
  private seq = 0;
  private readonly listeners = new Set<AnyListener>();

  constructor(
    private readonly onListenerError: (err: unknown) => void = () => {},
    /** Stamps each event's `at`; the agent's one Clock (docs/architecture.md, "Time"). */
    private readonly clock: Pick<TimeSource, 'wall'> = systemClock(),
  ) {}

  publish<K extends AgentEventType>(type: K, data: AgentEventMap[K]): AgentEvent<K> {
    const event: AgentEvent<K> = { seq: ++this.seq, type, at: new Date(this.clock.wall()).toISOString(), data };
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
    return event;
  }

  /** Every event. */
  subscribe(listener: AnyListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events of one type. */
  on<K extends AgentEventType>(type: K, listener: (event: AgentEvent<K>) => void): () => void {
    return this.subscribe((e) => {
      if (e.type === type) listener(e as AgentEvent<K>);
    });
  }

  get lastSeq(): number {
    return this.seq;
  }
}
