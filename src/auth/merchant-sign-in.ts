import { AgentError, ErrorCodes, isAgentError, type Logger, type TimeSource } from '../core/index.js';
import type { CustomTokenSettings } from './auth-settings.js';
import { checkAccessToken } from './jwt.js';
import { SignInStates } from './sign-in-states.js';
import { staffIdentityOf, type StaffIdentity } from './staff-claims.js';
import type { TokenEndpoint } from './token-endpoint.js';
import { isTransientAuthError } from './token-manager.js';
import type { GrantOutcome } from './token-response.js';

/** The merchant signs in with these scopes: `profile` carries the merchant (entityId) the custom-token call needs. */
export const MERCHANT_SCOPE = 'openid profile email';

/** Why a callback gave no merchant token; the counter page says each in words. */
export type SignInRefusal =
  'state_missing' | 'state_unknown' | 'state_expired' | 'denied' | 'no_code' | 'refused' | 'unreachable';

export interface MerchantSignInOptions {
  settings: CustomTokenSettings;
  endpoint: TokenEndpoint;
  /** Our certificate's x5t#S256: a merchant token that carries cnf must be bound to it. */
  thumbprint: string;
  leewaySeconds: number;
  clock: TimeSource;
  log: Logger;
}

export interface SignInCallback {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
}

interface Held {
  accessToken: string;
  refreshToken: string | undefined;
  /** A little before expiry, so a token handed out still works when it arrives. */
  usableUntilMono: number;
}

function refusal(reason: SignInRefusal, message: string, cause?: unknown): AgentError {
  return new AgentError(ErrorCodes.API_SIGN_IN_FAILED, message, {
    details: { reason },
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** The reason a refused sign-in gives (API_SIGN_IN_FAILED details), for the page. */
export function signInRefusalOf(err: unknown): SignInRefusal {
  const reason = isAgentError(err) ? (err.details as { reason?: unknown } | undefined)?.reason : undefined;
  return typeof reason === 'string' ? (reason as SignInRefusal) : 'refused';
}

/**
 * The merchant's sign-in for auth.mode custom_token (demo only; docs/platform-contract.md,
 * "Tokens", custom-token flow): the realm's authorization-code flow in the browser. begin()
 * gives the realm's authorization URL with a one-time `state`; complete() takes the
 * callback's query, refuses a state that is missing, unknown, used or expired before
 * anything is exchanged, and exchanges the code for the merchant token at the realm's token
 * URL. The merchant token lives in memory only (never logged, returned or written); the
 * custom-token call asks for it (merchantToken()) and it is renewed with its refresh token;
 * when that is refused, the merchant must sign in again.
 */
export class MerchantSignIn {
  private readonly states: SignInStates;
  private held: Held | undefined;
  private renewing: Promise<string> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly opts: MerchantSignInOptions) {
    this.states = new SignInStates(opts.settings.signInMs, opts.clock);
  }

  /** Whether a merchant token is held (it may need renewing). */
  get signedIn(): boolean {
    return this.held !== undefined;
  }

  /** The realm's authorization URL for a new sign-in whose callback is `redirectUri`. */
  begin(redirectUri: string): string {
    const { settings, endpoint } = this.opts;
    const url = new URL(endpoint.realmAuthorizationUrl(settings.realm));
    url.searchParams.set('client_id', settings.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', MERCHANT_SCOPE);
    url.searchParams.set('state', this.states.create(redirectUri));
    this.opts.log.info({ realm: settings.realm, clientId: settings.clientId }, 'merchant sign-in started');
    return url.toString();
  }

  /** The callback: who signed in (never the token), once the merchant token is held. */
  async complete(callback: SignInCallback): Promise<StaffIdentity> {
    // The state first: nothing of a callback this agent did not ask for is looked at.
    const taken = this.states.take(callback.state);
    if (!taken.ok) {
      this.opts.log.warn({ reason: `state_${taken.reason}` }, 'merchant sign-in callback refused');
      if (taken.reason === 'expired') throw refusal('state_expired', 'the sign-in took too long: start it again');
      throw refusal(
        taken.reason === 'missing' ? 'state_missing' : 'state_unknown',
        'this sign-in was not started here, or was already used: start it again',
      );
    }
    if (callback.error !== undefined) {
      this.opts.log.warn({ error: callback.error.slice(0, 20) }, 'merchant sign-in refused by the platform');
      throw refusal('denied', `the platform did not sign the merchant in (error ${callback.error.slice(0, 20)})`);
    }
    if (callback.code === undefined || callback.code === '')
      throw refusal('no_code', 'the platform sent no authorization code: start the sign-in again');
    const { settings, endpoint } = this.opts;
    let outcome: GrantOutcome;
    try {
      outcome = await endpoint.authorizationCode(
        settings.realm,
        settings.clientId,
        settings.clientSecret,
        callback.code,
        taken.pending.redirectUri,
      );
    } catch (err) {
      if (isTransientAuthError(err)) throw refusal('unreachable', 'the platform cannot be reached: try again', err);
      throw refusal(
        'refused',
        `the platform refused the sign-in${isAgentError(err) ? ` [${err.code}]` : ''}: start it again`,
        err,
      );
    }
    const token = this.accept(outcome);
    const who = staffIdentityOf(token, 'merchant');
    this.opts.log.info({ username: who.username }, 'merchant signed in');
    for (const l of [...this.listeners]) l();
    return who;
  }

  /** A current merchant token for the custom-token call; AUTH_SIGN_IN_REQUIRED when the merchant must sign in (again). */
  merchantToken(): Promise<string> {
    const held = this.held;
    if (held === undefined) return Promise.reject(signInRequired('the merchant has not signed in'));
    if (this.opts.clock.mono() < held.usableUntilMono) return Promise.resolve(held.accessToken);
    this.renewing ??= this.renew(held).finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Called after each successful sign-in. */
  onSignedIn(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves at the next sign-in (or at once when a merchant token is held); rejects when `signal` aborts. */
  whenSignedIn(signal: AbortSignal): Promise<void> {
    if (this.held !== undefined) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        off();
        reject(signal.reason);
      };
      const off = this.onSignedIn(() => {
        off();
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async renew(held: Held): Promise<string> {
    if (held.refreshToken === undefined) {
      this.held = undefined;
      throw signInRequired("the merchant's sign-in has run out");
    }
    const { settings, endpoint } = this.opts;
    try {
      return this.accept(
        await endpoint.realmRefresh(settings.realm, settings.clientId, settings.clientSecret, held.refreshToken),
        held.refreshToken,
      );
    } catch (err) {
      // Network trouble: the token manager retries with backoff. A refusal ends the sign-in.
      if (isTransientAuthError(err)) throw err;
      if (this.held === held) this.held = undefined;
      this.opts.log.warn(
        { code: isAgentError(err) ? err.code : undefined },
        "the merchant's sign-in could not be renewed: the merchant must sign in again",
      );
      throw signInRequired("the merchant's sign-in could not be renewed", err);
    }
  }

  private accept(outcome: GrantOutcome, previousRefreshToken?: string): string {
    const { response, timing } = outcome;
    const platformNowMs = timing.dateMs ?? timing.receivedAtMs;
    const info = checkAccessToken(response.access_token, {
      clientId: this.opts.settings.clientId,
      thumbprint: this.opts.thumbprint,
      leewaySeconds: this.opts.leewaySeconds,
      platformNowMs,
    });
    const lifetimeMs = Math.max(0, Math.min(response.expires_in * 1000, info.expiresAt.getTime() - platformNowMs));
    this.held = {
      accessToken: response.access_token,
      refreshToken: response.refresh_token ?? previousRefreshToken,
      usableUntilMono: timing.receivedMono + lifetimeMs * 0.9,
    };
    return response.access_token;
  }
}

function signInRequired(why: string, cause?: unknown): AgentError {
  return new AgentError(
    ErrorCodes.AUTH_SIGN_IN_REQUIRED,
    `${why}: sign in with the platform on the counter page (auth.mode custom_token)`,
    {
      ...(cause !== undefined ? { cause } : {}),
    },
  );
}
