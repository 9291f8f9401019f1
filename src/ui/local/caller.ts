import type { IncomingMessage } from 'node:http';
import type { Config } from '../../config/index.js';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { CLIENT_HEADER } from '../shared/index.js';
import { checkPermissions, requiredPermissions } from './permissions.js';
import { checkBearer } from './request-guard.js';
import { sessionIdOf } from './session-cookie.js';
import type { SessionStore } from './session-store.js';

export interface Caller {
  /** Recorded on every journal row the request makes: the clerk's username, `cli` or `local-api`. */
  operator: string;
  /** Set for a signed-in clerk (the counter page). */
  sessionId?: string;
  /**
   * A signed-in clerk's username and permissions, and the locale and zone of their token
   * (what receipts are written in: docs/receipts.md, "Language and time zone"); absent for a
   * token caller, who may do every operation.
   */
  staff?: { username: string; permissions: readonly string[]; locale?: string; zoneinfo?: string };
  /**
   * Whose Idempotency-Keys these are (docs/local-api.md, "Idempotency"): `token` for every
   * holder of the per-install token (the CLI and on-device programs share it), `staff:<username>`
   * for a signed-in clerk (kept across their sessions); a paired register will get its own.
   */
  scope: string;
}

/**
 * Who is calling /api/* (docs/counter-page.md, "Local API and counter page"): a program
 * with the per-install token (Authorization: Bearer, the CLI and on-device programs: every
 * operation), or the counter page with a staff session cookie (the operations the clerk's
 * permissions allow). Anything else is refused with 401 before a route runs.
 */
export function authenticate(
  req: IncomingMessage,
  pathname: string,
  deps: { token: string; sessions: SessionStore; config: Config },
): Caller {
  if (req.headers.authorization !== undefined) {
    checkBearer(req, deps.token);
    return { operator: req.headers[CLIENT_HEADER] === 'cli' ? 'cli' : 'local-api', scope: 'token' };
  }
  const id = sessionIdOf(req);
  const session = id === undefined ? undefined : deps.sessions.touch(id);
  if (id === undefined || session === undefined) {
    throw new AgentError(
      ErrorCodes.API_UNAUTHORIZED,
      id === undefined
        ? 'sign in on the counter page first (programs send Authorization: Bearer with the token from local-api.token in the data directory)'
        : 'your session has ended: sign in again',
    );
  }
  const need = requiredPermissions(req.method ?? 'GET', pathname, deps.config);
  if (need !== undefined) checkPermissions(session.staff.username, session.staff.permissions, need);
  return {
    operator: session.staff.username,
    sessionId: session.id,
    scope: `staff:${session.staff.username}`,
    staff: {
      username: session.staff.username,
      permissions: session.staff.permissions,
      ...(session.staff.locale !== undefined ? { locale: session.staff.locale } : {}),
      ...(session.staff.zoneinfo !== undefined ? { zoneinfo: session.staff.zoneinfo } : {}),
    },
  };
}
