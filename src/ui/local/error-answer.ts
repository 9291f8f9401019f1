import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:http';
import { ErrorCodes, isAgentError, type Logger } from '../../core/index.js';
import { REFUSAL_REASON_CODES, type RefusalReasonCode } from '../../payments/index.js';
import { httpStatusOf } from '../shared/index.js';
import { sendJson } from './http-io.js';

/**
 * The one way a listener answers a failed request (docs/architecture.md, "Errors"): an
 * AgentError with the status of its code (ui/shared/error-status.ts) and its words, a throttled
 * request also with Retry-After (RFC 9110), anything else 500 with no detail; 5xx logged.
 * An error after the answer started closes the connection. A cancel, refund or capture the
 * payment rules or the platform refuse carries its `reasonCode` (the allowed-operations answer's,
 * or one only the attempt learns: an approval code missing or wrong, an amount above what is left).
 */
export function answerError(err: unknown, req: IncomingMessage, res: ServerResponse, log: Logger): void {
  if (res.headersSent) {
    log.error({ err, path: req.url }, 'error after the answer started; closing the connection');
    res.destroy();
    return;
  }
  if (isAgentError(err)) {
    const status = httpStatusOf(err.code);
    if (status >= 500) log.error({ code: err.code, err, method: req.method, path: req.url }, 'request failed');
    else log.debug({ code: err.code, status, method: req.method }, err.message);
    const retryAfter = err.details?.['retryAfterSeconds'];
    if (status === 429 && typeof retryAfter === 'number') res.setHeader('retry-after', String(retryAfter));
    const reasonCode = operationReasonCode(err.details?.['reasonCode']);
    // A permission refusal names the permission, so the counter page can say it in the clerk's language.
    const permission =
      err.code === ErrorCodes.API_FORBIDDEN && typeof err.details?.['permission'] === 'string'
        ? err.details['permission']
        : undefined;
    sendJson(res, status, {
      error: {
        code: err.code,
        message: err.message,
        ...(reasonCode !== undefined ? { reasonCode } : {}),
        ...(permission !== undefined ? { permission } : {}),
      },
    });
    return;
  }
  log.error({ err, method: req.method, path: req.url }, 'unexpected error in a request');
  sendJson(res, httpStatusOf(ErrorCodes.INTERNAL), {
    error: { code: ErrorCodes.INTERNAL, message: 'internal error; the agent log has the details' },
  });
}

/** Stops a listener: no new connections, open ones (event streams included) closed. */
export function closeServer(srv: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    srv.close(() => resolve());
    srv.closeAllConnections();
  });
}

function operationReasonCode(value: unknown): RefusalReasonCode | undefined {
  return (REFUSAL_REASON_CODES as readonly unknown[]).includes(value) ? (value as RefusalReasonCode) : undefined;
}
