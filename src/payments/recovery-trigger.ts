import type { EventBus } from '../events/index.js';

/**
 * When start-up recovery runs (docs/payments.md, "Start-up recovery"): after the
 * first token at start, or, when the grant at start failed for good (a refused
 * certificate, credentials being renewed), at the first later grant that succeeds, so
 * rows an earlier process left in flight are never left until the next start. Returns
 * what stops the wait.
 */
export function recoverAfterFirstToken(opts: {
  bus: EventBus;
  /** The first grant; a rejection means the agent runs on without a token for now. */
  firstToken: () => Promise<void>;
  /** Called when the first grant failed, before the wait for a later one. */
  onFirstTokenFailed: (err: unknown) => void;
  recover: () => Promise<void>;
}): { done: Promise<void>; stop: () => void } {
  let stop = (): void => undefined;
  const done = (async () => {
    try {
      await opts.firstToken();
    } catch (err) {
      opts.onFirstTokenFailed(err);
      stop = opts.bus.on('auth.status', (e) => {
        if (e.data.state !== 'valid') return;
        stop();
        void opts.recover();
      });
      return;
    }
    await opts.recover();
  })();
  return { done, stop: () => stop() };
}
