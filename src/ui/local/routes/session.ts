import { z } from 'zod';
import type { Config } from '../../../config/index.js';
import type { Logger } from '../../../core/index.js';
import { AgentError, ErrorCodes } from '../../../core/index.js';
import { readJsonBody } from '../http-io.js';
import { pageAbilities } from '../permissions.js';
import type { Router } from '../router.js';
import {
  parseInput,
  type StaffAuthenticator,
  type ApiCounterSettings,
  type ApiSessionAnswer,
} from '../../shared/index.js';
import { clearedSessionCookie, sessionCookie, sessionIdOf } from '../session-cookie.js';
import type { Session, SessionStore } from '../session-store.js';
import { counterSettings, offeredCurrencies } from '../counter-settings.js';

const signInSchema = z.strictObject({
  username: z.string().trim().min(1, 'is empty').max(100),
  password: z.string().min(1, 'is empty').max(200),
});

export interface SessionRouteDeps {
  config: Config;
  log: Logger;
  sessions: SessionStore;
  staff: StaffAuthenticator | undefined;
  /** The page offers "Sign in with the platform" (auth.mode custom_token: routes/platform-sign-in.ts). */
  platformSignIn?: boolean;
}

function answer(session: Session, config: Config, currencies: ApiCounterSettings['currencies']): ApiSessionAnswer {
  const s = session.staff;
  return {
    signedIn: true,
    counter: counterSettings(config, currencies, s),
    staff: { username: s.username, name: s.name, offline: s.offline, can: pageAbilities(s.permissions, config) },
  };
}

/**
 * Staff sign-in for the counter page (docs/counter-page.md, "Local API and counter page"):
 * `GET /session` says who is signed in (never a credential), `POST /session` signs in and
 * sets the session cookie, `DELETE /session` signs out. These routes need no credential;
 * the Host and Origin checks run before them, as before every other route.
 */
export function registerSessionRoutes(router: Router, deps: SessionRouteDeps): void {
  // The sign-in screen speaks the configured language too: the settings go with a signed-out answer (they hold no secret).
  const currencies = offeredCurrencies(deps.config, deps.log);
  const signedOut = (): ApiSessionAnswer => ({
    signedIn: false,
    counter: counterSettings(deps.config, currencies, undefined),
  });
  router.add('GET', '/session', (ctx) => {
    const id = sessionIdOf(ctx.req);
    const session = id === undefined ? undefined : deps.sessions.touch(id);
    const offer = deps.platformSignIn === true ? { platformSignIn: true } : {};
    return {
      status: 200,
      body:
        session === undefined
          ? { ...signedOut(), ...offer }
          : { ...answer(session, deps.config, currencies), ...offer },
    };
  });

  router.add('POST', '/session', async (ctx) => {
    const body = parseInput(signInSchema, await readJsonBody(ctx.req, 4096), 'request body');
    if (deps.staff === undefined)
      throw new AgentError(ErrorCodes.API_SIGN_IN_FAILED, 'staff sign-in is not available on this agent');
    const staff = await deps.staff.signIn(body.username, body.password, ctx.req.socket.remoteAddress);
    // A sign-in replaces the session this browser had.
    const old = sessionIdOf(ctx.req);
    if (old !== undefined) deps.sessions.end(old);
    const session = deps.sessions.create(staff);
    deps.log.info({ username: staff.username, offline: staff.offline }, 'staff signed in');
    ctx.res.setHeader('set-cookie', sessionCookie(session.id));
    return { status: 200, body: answer(session, deps.config, currencies) };
  });

  router.add('DELETE', '/session', (ctx) => {
    const id = sessionIdOf(ctx.req);
    if (id !== undefined) {
      deps.sessions.end(id);
      ctx.res.setHeader('set-cookie', clearedSessionCookie());
    }
    return { status: 200, body: signedOut() };
  });
}
