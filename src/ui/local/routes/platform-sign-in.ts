import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Config } from '../../../config/index.js';
import { AgentError, ErrorCodes, isAgentError, type Logger } from '../../../core/index.js';
import { readJsonBody } from '../http-io.js';
import type { Router } from '../router.js';
import { parseInput, type PlatformSignInSource } from '../../shared/index.js';
import { sessionCookie, sessionIdOf } from '../session-cookie.js';
import type { SessionStore } from '../session-store.js';

export const CALLBACK_PATH = '/platform-sign-in/callback';

/** The words the page knows for a refused sign-in (page/sign-in.ts); anything else is `refused`. */
const REASONS = new Set([
  'state_missing',
  'state_unknown',
  'state_expired',
  'denied',
  'no_code',
  'refused',
  'unreachable',
]);

export interface PlatformSignInDeps {
  config: Config;
  log: Logger;
  sessions: SessionStore;
  signIn: PlatformSignInSource | undefined;
}

function isLoopback(address: string | undefined): boolean {
  return address === '::1' || address === '::ffff:127.0.0.1' || (address !== undefined && address.startsWith('127.'));
}

/** A redirect that leaves nothing behind: no caching, no Referer carrying the callback's code onwards. */
function redirect(res: ServerResponse, location: string, cookie?: string): void {
  res.statusCode = 303;
  res.setHeader('location', location);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('referrer-policy', 'no-referrer');
  if (cookie !== undefined) res.setHeader('set-cookie', cookie);
  res.end();
}

function one(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  // A parameter given twice is not ours to choose from.
  return all.length === 1 ? all[0] : undefined;
}

function reasonOf(err: unknown): string {
  const reason = isAgentError(err) ? (err.details as { reason?: unknown } | undefined)?.reason : undefined;
  return typeof reason === 'string' && REASONS.has(reason) ? reason : 'refused';
}

function refuseOffLoopback(req: IncomingMessage): void {
  // The listener is loopback only (local-api.ts); this route hands out a session, so it checks the peer itself too.
  if (!isLoopback(req.socket.remoteAddress)) {
    throw new AgentError(ErrorCodes.API_FORBIDDEN_ORIGIN, 'the platform sign-in is completed on this machine only');
  }
}

/**
 * The merchant's sign-in with the platform (auth.mode custom_token, demo only;
 * docs/counter-page.md, "Local API and counter page"). `POST /platform-sign-in` answers the
 * realm's authorization URL for the page to open, with a one-time state; the realm sends the
 * browser back to `GET /platform-sign-in/callback?code&state`, which is served to loopback
 * peers only: a state this agent did not issue, already used or expired is refused before
 * anything is exchanged; the code is exchanged for the merchant token (kept in memory by
 * the auth service, which then asks the custom-token call for the device token); the
 * merchant gets a counter session (cookie), and the browser goes back to the page, at `/`
 * or at `/?sign-in=<reason>` when refused. No token, code or state is logged or shown.
 */
export function registerPlatformSignInRoutes(router: Router, deps: PlatformSignInDeps): void {
  router.add('POST', '/platform-sign-in', async (ctx) => {
    parseInput(z.strictObject({}), await readJsonBody(ctx.req, 256), 'request body');
    if (deps.signIn === undefined) {
      throw new AgentError(
        ErrorCodes.API_SIGN_IN_FAILED,
        'signing in with the platform is for auth.mode custom_token only: sign in with your staff username and password',
      );
    }
    refuseOffLoopback(ctx.req);
    // Back to the name the page was loaded from (the Host was checked: loopback on our port), so the session cookie lands where the page is.
    const redirectUri = `http://${String(ctx.req.headers.host)}${CALLBACK_PATH}`;
    return { status: 200, body: { authorizationUrl: deps.signIn.begin(redirectUri) } };
  });

  router.add('GET', CALLBACK_PATH, async (ctx) => {
    refuseOffLoopback(ctx.req);
    const signIn = deps.signIn;
    if (signIn === undefined) {
      redirect(ctx.res, '/?sign-in=refused');
      return undefined;
    }
    try {
      const staff = await signIn.complete({
        state: one(ctx.query, 'state'),
        code: one(ctx.query, 'code'),
        error: one(ctx.query, 'error'),
      });
      const old = sessionIdOf(ctx.req);
      if (old !== undefined) deps.sessions.end(old);
      const session = deps.sessions.create(staff);
      deps.log.info({ username: staff.username }, 'merchant signed in with the platform on the counter page');
      redirect(ctx.res, '/', sessionCookie(session.id));
    } catch (err) {
      // Never rethrown: the error handler would log the request's URL, which carries the code.
      const reason = reasonOf(err);
      deps.log.warn({ reason, code: isAgentError(err) ? err.code : undefined }, 'platform sign-in refused');
      redirect(ctx.res, `/?sign-in=${reason}`);
    }
    return undefined;
  });
}
