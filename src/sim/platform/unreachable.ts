import type { Server } from 'node:https';
import type { Logger } from 'pino';
import type { TimerHandle, TimerSource } from '../../core/index.js';

/** The longest the demo platform can be made unreachable at once. */
export const MAX_UNREACHABLE_SECONDS = 3_600;

/**
 * Makes the demo platform unreachable for a while, the way a terminal sees a platform
 * outage (docs/demo-platform.md, "Demo platform", control routes): both listeners stop
 * accepting and every open connection is closed, so the next request is refused
 * (`ECONNREFUSED`: the agent knows it never arrived and an offline sale can be taken);
 * after the time both listen again on the same ports. Fault injection cannot do this: a
 * fault answers or drops a request that has already arrived.
 */
export class Reachability {
  private timer: TimerHandle | undefined;
  private until: number | undefined;
  /**
   * The Clock's timers do not keep the process alive; with both listeners closed
   * `terminal-agent sim` would exit before listening again. This handle keeps it alive
   * while unreachable (it measures no time).
   */
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly servers: ReadonlyArray<{ server: Server; port: number; host: string }>,
    private readonly clock: TimerSource & { wall(): number },
    private readonly log: Logger,
  ) {}

  /** Seconds left while unreachable; undefined when reachable. */
  remainingSeconds(): number | undefined {
    return this.until === undefined ? undefined : Math.max(0, Math.ceil((this.until - this.clock.wall()) / 1000));
  }

  /** Unreachable from now for `seconds` (a later call replaces the time left). */
  suspend(seconds: number): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    if (this.until === undefined) {
      for (const { server } of this.servers) {
        server.close();
        server.closeAllConnections();
      }
    }
    this.keepAlive ??= setInterval(() => undefined, 1 << 30);
    this.until = this.clock.wall() + seconds * 1000;
    this.timer = this.clock.setTimeout(() => this.resume(), seconds * 1000);
    this.log.warn({ seconds }, 'demo platform unreachable (control call)');
  }

  /** Listens again at once. */
  resume(): void {
    this.release();
    if (this.until === undefined) return;
    this.until = undefined;
    for (const { server, port, host } of this.servers) {
      server.once('error', (err) => this.log.error({ err, port }, 'demo platform could not listen again'));
      server.listen(port, host);
    }
    this.log.info('demo platform reachable again');
  }

  /** At stop: no timer left behind (the listeners are closed by the caller). */
  stop(): void {
    this.release();
  }

  private release(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
