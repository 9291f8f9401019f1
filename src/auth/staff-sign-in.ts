import { AgentError, ErrorCodes, isAgentError, type Logger, type TimeSource } from '../core/index.js';
import type { DispatcherSource } from '../platform/index.js';
import { checkAccessToken } from './jwt.js';
import { staffIdentityOf, type StaffIdentity } from './staff-claims.js';
import { TokenEndpoint } from './token-endpoint.js';
import { isTransientAuthError } from './token-manager.js';
import { StaffVerifier } from './staff-verifier.js';
import { SignInThrottle, type SignInAttempt, type SignInThrottlePolicy } from './staff-throttle.js';

export interface StaffSignInOptions {
  endpoints: { authUrl: string; deviceAuthUrl: string };
  dispatchers: DispatcherSource;
  /** auth.poweredClientId: the platform's designated application for the password grant. */
  clientId: string;
  /** Our certificate's x5t#S256: a staff token that carries cnf must be bound to it. */
  thumbprint: string;
  leewaySeconds: number;
  dataDir: string;
  /** auth.offlineSignInDays. */
  offlineDays: number;
  clock: TimeSource;
  log: Logger;
  /** Failed sign-in throttle (staff-throttle.ts); the defaults unless a test needs shorter waits. */
  throttle?: Partial<SignInThrottlePolicy>;
}

export interface StaffSignInResult extends StaffIdentity {
  /** True when checked against the local verifier because the platform could not be reached. */
  offline: boolean;
}

/**
 * Staff sign-in at the counter (docs/counter-page.md, "Local API and counter page"): the
 * platform's end-user flow, the password grant at the device token endpoint over mutual TLS
 * with scope openid profile email (docs/platform-contract.md, "Tokens"). The token is read
 * for its profile claims (name, permissions) and then dropped: payments go with the
 * merchant's device token, so the clerk's token is never kept, stored or sent anywhere.
 * While the platform cannot be reached, a clerk who signed in online recently is checked
 * against the local verifier (staff-verifier.ts).
 */
export class StaffSignIn {
  private readonly endpoint: TokenEndpoint;
  private readonly verifier: StaffVerifier;
  private readonly throttle: SignInThrottle;

  constructor(private readonly opts: StaffSignInOptions) {
    this.endpoint = new TokenEndpoint({ ...opts.endpoints, dispatchers: opts.dispatchers, clock: opts.clock });
    this.verifier = new StaffVerifier({
      dataDir: opts.dataDir,
      days: opts.offlineDays,
      clock: opts.clock,
      log: opts.log,
    });
    this.throttle = new SignInThrottle(opts.clock, opts.throttle);
  }

  /**
   * Checks the clerk's password with the platform, or the local verifier while it is
   * unreachable; both behind the failed sign-in throttle (per username and per `client`
   * address), so neither can be used to guess passwords quickly. Rejects with
   * API_SIGN_IN_THROTTLED while a wait runs, API_SIGN_IN_FAILED when refused.
   */
  async signIn(username: string, password: string, client?: string): Promise<StaffSignInResult> {
    const attempt = this.throttle.begin(username, client);
    try {
      const result = await this.check(username, password);
      attempt.succeeded();
      return result;
    } catch (err) {
      this.settle(attempt, err);
      throw err;
    }
  }

  /** A wrong username or password counts; anything else (the platform or the terminal at fault) does not. */
  private settle(attempt: SignInAttempt, err: unknown): void {
    if (isAgentError(err) && err.code === ErrorCodes.API_SIGN_IN_FAILED && err.details?.['credentials'] === true) {
      attempt.failed();
      // No username: a password typed into the username field must not reach the log.
      this.opts.log.info('staff sign-in refused: wrong username or password');
    } else attempt.abandoned();
  }

  private async check(username: string, password: string): Promise<StaffSignInResult> {
    let token: string;
    let platformNowMs: number;
    try {
      const outcome = await this.endpoint.password(this.opts.clientId, username, password);
      token = outcome.response.access_token;
      platformNowMs = outcome.timing.dateMs ?? this.opts.clock.wall();
    } catch (err) {
      if (isTransientAuthError(err)) {
        this.opts.log.warn(
          { code: isAgentError(err) ? err.code : undefined },
          'staff sign-in: the platform cannot be reached; checking the local verifier',
        );
        return { ...(await this.verifier.verify(username, password)), offline: true };
      }
      if (isAgentError(err) && err.code === ErrorCodes.AUTH_INVALID_GRANT) {
        // Refused by the platform: the verifier of an earlier sign-in must not outlive it.
        this.verifier.forget(username);
        throw new AgentError(ErrorCodes.API_SIGN_IN_FAILED, 'wrong username or password', {
          details: { credentials: true },
        });
      }
      throw new AgentError(
        ErrorCodes.API_SIGN_IN_FAILED,
        `sign-in refused by the platform${isAgentError(err) ? ` [${err.code}]` : ''}`,
        { cause: err },
      );
    }
    checkAccessToken(token, {
      clientId: this.opts.clientId,
      thumbprint: this.opts.thumbprint,
      leewaySeconds: this.opts.leewaySeconds,
      platformNowMs,
    });
    const staff = staffIdentityOf(token, username);
    await this.verifier.remember(staff, password);
    return { ...staff, offline: false };
  }
}
