/**
 * Reading the events of a sale's history the agent searches for its own cancel or refund
 * (cancel-outcome.ts, by-web-outcome.ts): fields may be absent, null or of another type
 * (docs/platform-contract.md, "Tolerance of answers"), so each is read for what it must be.
 */

export const asObject = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** A non-empty string, else undefined. */
export const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Same instant: the platform may echo our ISO time with or without milliseconds. */
export function sameInstant(a: string | undefined, b: string): boolean {
  // An unreadable time parses as NaN, which equals nothing.
  return a !== undefined && (a === b || Date.parse(a) === Date.parse(b));
}

/** A result event's `result` word that says the operation was not done. */
export const REFUSED_RESULT = /refus|declin|reject|fail|error|denied/i;
