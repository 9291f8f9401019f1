import type { Dispatcher } from 'undici';

/** Builds the dispatcher of one origin, e.g. `() => createMtlsDispatcher(identity, timeouts)`. */
export type DispatcherFactory = (origin: string) => Dispatcher;

/**
 * One keep-alive dispatcher per platform host (main API, security host, device auth),
 * created on first use and closed together. Replacing the factory (a new device
 * certificate) closes the old connections so no request goes out with the old identity.
 */
export class HostDispatchers {
  private readonly byOrigin = new Map<string, Dispatcher>();

  constructor(private factory: DispatcherFactory) {}

  for(url: string): Dispatcher {
    const origin = new URL(url).origin;
    let d = this.byOrigin.get(origin);
    if (d === undefined) {
      d = this.factory(origin);
      this.byOrigin.set(origin, d);
    }
    return d;
  }

  async replace(factory: DispatcherFactory): Promise<void> {
    this.factory = factory;
    await this.close();
  }

  async close(): Promise<void> {
    const all = [...this.byOrigin.values()];
    this.byOrigin.clear();
    await Promise.allSettled(all.map((d) => d.close()));
  }
}

/** Where a client gets the dispatcher of a URL: a HostDispatchers or a single dispatcher. */
export type DispatcherSource = Pick<HostDispatchers, 'for'> | Dispatcher;

export function dispatcherFor(source: DispatcherSource, url: string): Dispatcher {
  return 'for' in source && typeof source.for === 'function' ? source.for(url) : (source as Dispatcher);
}
