import type { SimRouter } from '../router.js';
import type { SimContext } from '../context.js';

/** The demo payment API, wallet providers and the ledger. */
export interface SimPaymentPlatform {
  registerControl(router: SimRouter): void;
  /** Stops wallet timers. */
  stop(): void;
}

export function createPaymentPlatform(_router: SimRouter, _ctx: SimContext): SimPaymentPlatform {
  return { registerControl() {}, stop() {} };
}
