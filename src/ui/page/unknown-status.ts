import type { Transaction } from './types.js';

/**
 * The platform's status word when the agent set the sale aside because it does not know
 * that word (its message then reads "the platform says <status>: ..."): not a failure, a
 * check before the goods are handed over (docs/platform-contract.md, "Tolerance of
 * answers", status values). Kept apart from the DOM so it is tested on its own.
 */
export function unknownPlatformStatus(
  t: Pick<Transaction, 'kind' | 'state' | 'platformStatus' | 'message'>,
): string | undefined {
  const status = t.platformStatus;
  if (t.kind !== 'sale' || t.state !== 'needs_attention' || status === undefined) return undefined;
  return t.message?.startsWith(`the platform says ${status}:`) === true ? status : undefined;
}
