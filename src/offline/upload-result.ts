import { describeError, ErrorCodes, isAgentError } from '../core/index.js';
import { uploadSettlement } from '../payments/index.js';
import { isPlatformError, type TransactionRecord } from '../platform/index.js';
import type { AttemptOutcome } from './types.js';

/** What one item's upload try came to, as a flush reports it. */
export type ItemResult = 'uploaded' | 'declined_after_upload' | 'rejected' | 'needs_attention' | 'deferred';

/**
 * The attempt outcome of an answered upload, read as the journal reads it (uploadSettlement:
 * refused, failed or expired in any casing is declined; docs/platform-contract.md,
 * "Tolerance of answers", statuses compared case-insensitively).
 */
export function answeredOutcome(record: TransactionRecord): Extract<AttemptOutcome, 'accepted' | 'declined'> {
  return uploadSettlement(record).settledAs === 'declined_after_upload' ? 'declined' : 'accepted';
}

/** Platform trouble: the item waits for the next try, uncounted. */
export interface Deferral {
  kind: 'deferred';
  /** `unknown`: the request may have arrived (the item stays marked and is looked up first). */
  outcome: Extract<AttemptOutcome, 'unavailable' | 'unknown'>;
  message: string;
  status: number | undefined;
  /** The platform could not be reached at all (network, timeout, auth): it counts as offline. */
  platformDown: boolean;
  /** The platform's Retry-After, a floor for the next wait. */
  retryAfterMs: number | undefined;
  /** Not an error the agent raises on purpose: worth an error line in the log. */
  unexpected: boolean;
}

/**
 * Why an upload's request failed, and so what happens to the item (docs/offline.md,
 * "Offline queue"): `rejected` the platform refused the request (4xx but 429), counted
 * towards offline.maxAttempts; `unsendable` the body can never be sent (our own request
 * check refused it), straight to staff; anything else is the platform's trouble, deferred.
 */
export type UploadFailure =
  | { kind: 'rejected'; message: string; status: number | undefined }
  | { kind: 'unsendable'; message: string }
  | Deferral;

export function classifyUploadFailure(err: unknown): UploadFailure {
  if (isPlatformError(err) && err.category === 'rejected' && err.status !== 429)
    return { kind: 'rejected', message: describeError(err), status: err.status };
  if (isAgentError(err, ErrorCodes.PLATFORM_BAD_REQUEST)) return { kind: 'unsendable', message: describeError(err) };
  // The sale names a merchant the terminal does not serve (credentials read, every merchant's
  // id known): it is never sent under another merchant, a person decides
  // (docs/payments.md, "Offline card sale and upload", merchant of an offline sale).
  if (isAgentError(err, ErrorCodes.AUTH_NO_MERCHANT))
    return {
      kind: 'unsendable',
      message: `${describeError(err)}; the sale is never uploaded under another merchant: have the merchant added to this terminal at the platform and requeue it`,
    };
  return deferralOf(err, false);
}

/**
 * A try that failed on the platform's side. It may have arrived when the lookup before it
 * failed (`lookupFailed`), when the platform says so, or when the failure is not the
 * platform client's at all (nothing is known about it).
 */
export function deferralOf(err: unknown, lookupFailed: boolean): Deferral {
  const platform = isPlatformError(err) ? err : undefined;
  const unknown = lookupFailed || platform === undefined || platform.outcomeUnknown;
  return {
    kind: 'deferred',
    outcome: unknown ? 'unknown' : 'unavailable',
    message: describeError(err),
    status: platform?.status,
    platformDown:
      platform !== undefined &&
      (platform.category === 'network' || platform.category === 'timeout' || platform.category === 'auth'),
    retryAfterMs: platform?.retryAfterMs,
    unexpected: !isAgentError(err),
  };
}
