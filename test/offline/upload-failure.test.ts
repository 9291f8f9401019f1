import { describe, expect, it } from 'vitest';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { classifyUploadFailure, deferralOf } from '../../src/offline/upload-result.js';
import { PlatformError, type PlatformErrorInit } from '../../src/platform/errors.js';

// What happens to a stored offline sale whose upload failed (docs/offline.md, "Offline
// queue"): refused and counted, never sendable and handed to staff, or deferred uncounted.
const platform = (
  init: Partial<PlatformErrorInit> & Pick<PlatformErrorInit, 'category'>,
  message = 'upload failed',
): PlatformError =>
  new PlatformError(message, { operation: 'process', method: 'POST', outcomeUnknown: false, ...init });

describe('an upload the platform refused', () => {
  it("a 4xx refusal is counted towards the attempt limit, with the platform's words and status", () => {
    expect(
      classifyUploadFailure(platform({ category: 'rejected', status: 422 }, 'HTTP 422: amount invalid')),
    ).toStrictEqual({ kind: 'rejected', message: 'HTTP 422: amount invalid', status: 422 });
  });

  it("429 (too many requests) is the platform's trouble: deferred with its Retry-After, not counted", () => {
    const failure = classifyUploadFailure(
      platform({ category: 'rejected', status: 429, retryAfterMs: 30_000 }, 'HTTP 429'),
    );
    expect(failure).toStrictEqual({
      kind: 'deferred',
      outcome: 'unavailable',
      message: 'HTTP 429',
      status: 429,
      platformDown: false,
      retryAfterMs: 30_000,
      unexpected: false,
    });
  });

  it('a body our own request check refuses can never be sent: straight to staff', () => {
    expect(classifyUploadFailure(new AgentError(ErrorCodes.PLATFORM_BAD_REQUEST, 'currency missing'))).toStrictEqual({
      kind: 'unsendable',
      message: 'currency missing',
    });
  });

  it('a sale naming a merchant the terminal does not serve: straight to staff, never sent under another merchant', () => {
    // As the platform client reports it: no token for the merchant, its code kept.
    const noMerchant = platform(
      { category: 'auth', code: ErrorCodes.AUTH_NO_MERCHANT },
      "no access token for process: merchant m-nobody is not one of this terminal's merchants",
    );
    expect(classifyUploadFailure(noMerchant)).toStrictEqual({
      kind: 'unsendable',
      message:
        "no access token for process: merchant m-nobody is not one of this terminal's merchants; the sale is never uploaded under another merchant: have the merchant added to this terminal at the platform and requeue it",
    });
    // Any other token trouble is the platform's: deferred.
    expect(
      classifyUploadFailure(platform({ category: 'auth' }, 'no access token for process (AUTH_INVALID_CLIENT)')),
    ).toMatchObject({ kind: 'deferred' });
  });
});

describe('an upload deferred to the next try', () => {
  it('the platform unreachable, timed out or not taking our credentials counts as offline', () => {
    for (const category of ['network', 'timeout', 'auth'] as const) {
      expect(classifyUploadFailure(platform({ category })), category).toMatchObject({
        kind: 'deferred',
        platformDown: true,
        unexpected: false,
      });
    }
    expect(classifyUploadFailure(platform({ category: 'server', status: 503 }))).toMatchObject({
      kind: 'deferred',
      platformDown: false,
      status: 503,
    });
  });

  it("it may have arrived when the platform says so, when the lookup before it failed, or when the failure is not the platform client's", () => {
    expect(deferralOf(platform({ category: 'timeout', outcomeUnknown: true }), false).outcome).toBe('unknown');
    expect(deferralOf(platform({ category: 'network' }), false).outcome).toBe('unavailable');
    expect(deferralOf(platform({ category: 'network' }), true).outcome).toBe('unknown');
    const bug = deferralOf(new TypeError('x is undefined'), false);
    expect(bug).toStrictEqual({
      kind: 'deferred',
      outcome: 'unknown',
      message: 'x is undefined',
      status: undefined,
      platformDown: false,
      retryAfterMs: undefined,
      unexpected: true,
    });
  });

  it('an error the agent raises on purpose is not logged as unexpected', () => {
    expect(deferralOf(new AgentError(ErrorCodes.PAYMENT_RULE, 'refused'), false)).toMatchObject({
      outcome: 'unknown',
      platformDown: false,
      unexpected: false,
    });
  });
});
