import type { ApiRefusalReasonCode } from '../wire-types.js';

/**
 * An error the agent answered with: its stable `code` picks the clerk's sentence from the
 * catalog (error-texts.ts); `message` is the agent's own English words, kept for the
 * "details" control (docs/counter-page.md, "Local API and counter page", languages).
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** A refused cancel, refund or capture: why, as the allowed-operations answer says it, or an approval code or amount refused (reason-texts.ts). */
    readonly reasonCode?: ApiRefusalReasonCode,
    /** A refusal for a missing staff permission: the permission needed, named in the clerk's sentence (error-banner.ts). */
    readonly permission?: string,
  ) {
    super(message);
  }
}
