import { AgentError, ErrorCodes, describeError, isAgentError } from '../core/index.js';
import { isNotFound, isPlatformError } from '../platform/index.js';
import type { PlatformError } from '../platform/index.js';

/**
 * What a failed platform write means for the money (docs/payments.md, "Unknown
 * outcome: resolution and reversal"; docs/platform-contract.md, "Hosts and TLS"):
 * - `not_sent`: the request never reached the platform (nothing happened; offline may apply);
 * - `refused`: the platform answered and did nothing (4xx, 401/403);
 * - `unknown`: it may have taken effect (timeout, reset after sending, 5xx, unreadable 2xx):
 *   look it up by client id before anything else.
 */
export type FailureKind = 'not_sent' | 'refused' | 'unknown';

export function failureKind(err: unknown): FailureKind {
  // An answer that arrived (2xx) but whose essentials cannot be read is never by itself a
  // reason to reverse: the platform acted, so the transaction is looked up first
  // (docs/platform-contract.md, "Tolerance of answers").
  if (answeredUnreadable(err)) return 'unknown';
  if (isPlatformError(err)) {
    if (err.category === 'network' && !err.outcomeUnknown) return 'not_sent';
    if (err.category === 'auth' || err.category === 'rejected') return 'refused';
    return 'unknown';
  }
  // Our own request check throws before anything is sent.
  if (isAgentError(err, ErrorCodes.PLATFORM_BAD_REQUEST)) return 'not_sent';
  // Anything else (a bug, an unexpected throw) may have happened after sending: be safe.
  return 'unknown';
}

/** The platform answered a write with a 2xx whose essentials (status, server id) could not be read. */
export function answeredUnreadable(err: unknown): boolean {
  return (
    isPlatformError(err) &&
    err.code === ErrorCodes.PLATFORM_BAD_RESPONSE &&
    err.status !== undefined &&
    err.status >= 200 &&
    err.status <= 299
  );
}

/** A write (cancel, refund, ...) answered 404: the id in its path is not known. A 400 or 422 to a write refuses its body instead. */
export function isNotFoundError(err: unknown): boolean {
  return isPlatformError(err) && err.status === 404;
}

/**
 * A lookup (the status call) answered that the id is not known: 404, or 400 / 422 as some
 * platforms answer (docs/platform-contract.md, "Decisions where the spec is silent", unknown
 * transaction id). Only for reads: the call carries nothing but the id.
 */
export function isUnknownIdAnswer(err: unknown): boolean {
  return isNotFound(err);
}

/** The merchant aggregator requires a supervisor approval code (docs/platform-contract.md, "Decisions where the spec is silent", approval code). */
export function isApprovalCodeRefusal(err: unknown): boolean {
  if (!isPlatformError(err) || err.category !== 'rejected') return false;
  return /approval.?code/i.test(refusalText(err));
}

/** The platform's code and message of a refusal as one text (either may be absent). */
function refusalText(err: PlatformError): string {
  // Stryker disable next-line StringLiteral: an absent part read as any other text without the words looked for (approval code, invalid, incorrect, not correct, wrong) decides the same
  const [code, message] = [err.errorCode ?? '', err.errorMessage ?? ''];
  return `${code} ${message}`;
}

/** The platform's own words for a refusal, without the HTTP framing. */
export function platformReason(err: unknown): string {
  if (isPlatformError(err)) return err.errorMessage ?? err.message;
  return describeError(err);
}

/** A refusal of the platform as an error a person can act on (message never has card data: platform messages carry none). */
export function refusalError(err: unknown, op: string, clientTransactionId: string): AgentError {
  if (isApprovalCodeRefusal(err)) {
    const given = isPlatformError(err) && /invalid|incorrect|not correct|wrong/i.test(refusalText(err));
    return new AgentError(
      ErrorCodes.PAYMENT_RULE,
      given
        ? `the ${op} was refused: the supervisor approval code is not correct`
        : `the ${op} was refused: a supervisor approval code is required for this merchant`,
      {
        cause: err,
        details: {
          approvalCodeRequired: true,
          reasonCode: given ? 'APPROVAL_CODE_INCORRECT' : 'APPROVAL_CODE_REQUIRED',
          clientTransactionId,
        },
      },
    );
  }
  if (isPlatformError(err) && err.category === 'auth') {
    return new AgentError(
      ErrorCodes.PLATFORM_AUTH,
      `the platform did not accept the terminal's credentials for the ${op}: nothing was done (${platformReason(err)})`,
      {
        cause: err,
        details: { clientTransactionId },
      },
    );
  }
  // Stryker disable next-line StringLiteral: no message read as any other text without "refund instead" or "refund it" decides the same
  const message = isPlatformError(err) ? (err.errorMessage ?? '') : '';
  const suggest = /refund instead|refund it/i.test(message) ? { suggest: 'refund' } : {};
  return new AgentError(ErrorCodes.PAYMENT_RULE, `the platform refused the ${op}: ${platformReason(err)}`, {
    cause: err,
    details: {
      clientTransactionId,
      ...suggest,
      ...(isPlatformError(err) && err.errorCode !== undefined ? { platformCode: err.errorCode } : {}),
    },
  });
}
