const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UTC8 = 8 * HOUR;

/**
 * walletA can be cancelled from the sale until 00:15 UTC+8 on the following
 * day (docs/platform-contract.md, "Decisions where the spec is silent", windows). Returns the first instant at which the cancel is no
 * longer possible.
 */
export function walletACancelDeadline(saleAt: number): number {
  const local = new Date(saleAt + UTC8);
  const localMidnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  return localMidnight + DAY + 15 * 60_000 - UTC8;
}

/** walletB cancel during the first 24 hours after the sale, 24 h exactly is too late (docs/platform-contract.md, "Decisions where the spec is silent", windows). */
export function walletBCancelDeadline(saleAt: number): number {
  return saleAt + DAY;
}

/**
 * walletB refund "up to 180 days after the sale" (docs/platform-contract.md, "Decisions where the spec is silent", windows). Like the cancel windows,
 * the period is half-open: 180 days after the sale to the millisecond is too late.
 */
export function walletBRefundDeadline(saleAt: number): number {
  return saleAt + 180 * DAY;
}
