import {
  AgentError,
  isAgentError,
  ErrorCodes,
  backoffDelay,
  type Logger,
  type ErrorCode,
  type BackoffOptions,
  type Clock,
  type TimerHandle,
} from '../core/index.js';
import { isPlatformError, type PlatformError } from '../platform/index.js';
import { checkAccessToken, decodeJwtPayload, type AccessTokenInfo } from './jwt.js';
import type { ClockSkewMeter } from './clock-skew.js';
import type { GrantOutcome } from './token-response.js';

/**
 * - idle: nothing asked yet; acquiring: first grant in flight; valid; refreshing;
 * - retrying: the platform was unreachable, slow or failing; a retry is scheduled (backoff);
 * - config_fault: the platform refused our client or user (renewed secret not picked up,
 *   wrong password, refused grant); slow retries until it is fixed;
 * - binding_mismatch: the token carries cnf for another certificate than ours (RFC 8705);
 * - cert_refused / unknown_terminal: the platform refused the device certificate / serial;
 * - cert_expired: our certificate is outside its validity window (or our clock is wrong);
 * - token_invalid: the token is expired on arrival, not yet valid, or for another client;
 * - sign_in_required: custom_token mode, the merchant has not signed in on the counter page (or must again).
 */
export type TokenState =
  | 'idle'
  | 'acquiring'
  | 'valid'
  | 'refreshing'
  | 'retrying'
  | 'config_fault'
  | 'binding_mismatch'
  | 'cert_refused'
  | 'cert_expired'
  | 'unknown_terminal'
  | 'token_invalid'
  | 'sign_in_required'
  | 'stopped';

/** How a manager obtains tokens: one OAuth flow for one client. */
export interface TokenSource {
  readonly flow: 'client_credentials' | 'password' | 'custom_token';
  /** The client the token must be issued to (azp, aud). */
  clientId(): string;
  grant(): Promise<GrantOutcome>;
  /**
   * Absent when the flow cannot refresh, undefined when this token cannot be refreshed
   * (no user domain known): the manager grants again instead.
   */
  refresh?(refreshToken: string, token: AccessTokenInfo): Promise<GrantOutcome> | undefined;
  /** After the client was refused (a renewed secret): read the credentials again. */
  reloadCredentials?(): Promise<void>;
}

export interface TokenManagerOptions {
  source: TokenSource;
  /** Our certificate's x5t#S256. */
  thumbprint: string;
  /** Refresh at this fraction of the lifetime (0.8 by default: docs/platform-contract.md, "Tokens"). */
  refreshRatio: number;
  leewaySeconds: number;
  backoff: BackoffOptions;
  /** Wait between attempts after a failure that retrying soon will not fix. */
  slowRetryMs: number;
  /** Expiry on its monotonic time, refresh and retry timers on its timers (docs/architecture.md, "Time"). */
  clock: Clock;
  skew: ClockSkewMeter;
  log: Logger;
  onChange?: (manager: TokenManager) => void;
}

export interface TokenStatus {
  clientId: string;
  flow: TokenSource['flow'];
  state: TokenState;
  hasToken: boolean;
  merchantId?: string;
  username?: string;
  scopes?: string[];
  /** Local-clock estimates. */
  expiresAt?: string;
  refreshAt?: string;
  bound?: boolean;
  lastError?: { code: string; message: string; at: string };
  nextRetryAt?: string;
  counts: TokenCounts;
}

export interface TokenCounts {
  grants: number;
  refreshes: number;
  failures: number;
  /** Refresh refused (any OAuth refusal): the refresh token dropped and the client granted again. */
  regrants: number;
  /** Client refused (invalid_client, unauthorized_client, 401): merchant credentials read again. */
  credentialReloads: number;
}

interface Held {
  accessToken: string;
  refreshToken: string | undefined;
  info: AccessTokenInfo;
  expiresAtMono: number;
  /** A little before expiry, so that a token handed out still works when it arrives. */
  usableUntilMono: number;
  refreshAtMono: number;
  refreshExpiresAtMono: number | undefined;
  expiresAtWall: number;
  refreshAtWall: number;
}

/** Never refresh more often than this, whatever expires_in says. */
const MIN_REFRESH_MS = 500;
const MAX_USE_MARGIN_MS = 5_000;

const STATE_OF: Partial<Record<ErrorCode, TokenState>> = {
  AUTH_BINDING_MISMATCH: 'binding_mismatch',
  AUTH_CERT_REFUSED: 'cert_refused',
  CERT_EXPIRED: 'cert_expired',
  CERT_NOT_YET_VALID: 'cert_expired',
  AUTH_UNKNOWN_TERMINAL: 'unknown_terminal',
  AUTH_TOKEN_INVALID: 'token_invalid',
  AUTH_SIGN_IN_REQUIRED: 'sign_in_required',
  PLATFORM_BAD_RESPONSE: 'token_invalid',
};

/** The platform answered a token request with a refusal (a 4xx other than 429): nothing was issued. */
function isRefusal(err: unknown): err is PlatformError {
  return (
    isPlatformError(err) && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429
  );
}

/** A failure a later attempt may well not see: network, timeout, 5xx, 429. */
export function isTransientAuthError(err: unknown): boolean {
  if (isPlatformError(err)) return err.transient && err.code !== ErrorCodes.PLATFORM_BAD_RESPONSE;
  return false;
}

function asAgentError(err: unknown): AgentError {
  if (err instanceof AgentError) return err;
  return new AgentError(
    ErrorCodes.INTERNAL,
    `token request failed: ${err instanceof Error ? err.message : String(err)}`,
    { cause: err },
  );
}

/**
 * The tokens of one OAuth client (one merchant), in memory only. Refreshes proactively
 * at `refreshRatio` of the lifetime measured on a monotonic clock from receipt; one
 * request in flight however many callers wait; a refused refresh is followed by a new
 * grant at once; a refused client re-reads its credentials once per attempt.
 */
export class TokenManager {
  private held: Held | undefined;
  private inflight: Promise<Held> | undefined;
  private state: TokenState = 'idle';
  private lastError: { err: AgentError; atWall: number; transient: boolean } | undefined;
  /** Consecutive transient failures: the backoff exponent. */
  private failuresInRow = 0;
  private lastAttemptEndMono = Number.NEGATIVE_INFINITY;
  private timer: TimerHandle | undefined;
  private nextRetryWall: number | undefined;
  private stopped = false;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private readonly counts: TokenCounts = { grants: 0, refreshes: 0, failures: 0, regrants: 0, credentialReloads: 0 };
  private readonly log: Logger;

  constructor(private readonly opts: TokenManagerOptions) {
    this.log = opts.log.child({ clientId: opts.source.clientId() });
  }

  get clientId(): string {
    return this.opts.source.clientId();
  }

  /** Claims of the token held, if any (merchant id, scopes, expiry). */
  get info(): AccessTokenInfo | undefined {
    return this.held?.info;
  }

  /** Starts getting a token in the background; resolves when one is held, rejects on a failure retrying soon will not fix. */
  start(): Promise<void> {
    if (this.held === undefined && this.inflight === undefined && this.timer === undefined) this.background();
    return this.whenReady();
  }

  whenReady(): Promise<void> {
    if (this.stopped) return Promise.reject(stoppedError());
    if (this.usable()) return Promise.resolve();
    if (this.lastError !== undefined && !this.lastError.transient && this.inflight === undefined)
      return Promise.reject(this.lastError.err);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** A current access token: the one held, the one being fetched, or a new one. */
  async token(): Promise<string> {
    if (this.stopped) throw stoppedError();
    if (this.usable()) return (this.held as Held).accessToken;
    if (this.inflight !== undefined) return (await this.inflight).accessToken;
    // Between retries callers get the last error at once instead of hammering the platform;
    // after a transient failure one caller may try again once the first backoff step passed.
    const last = this.lastError;
    if (
      last !== undefined &&
      !(last.transient && this.opts.clock.mono() - this.lastAttemptEndMono >= this.opts.backoff.baseMs)
    ) {
      throw last.err;
    }
    return (await this.attempt()).accessToken;
  }

  /**
   * The platform answered 401 to `token` (expired early, revoked): drop it and refresh now.
   * A token already replaced is ignored, so many concurrent 401s cause one refresh.
   */
  invalidate(token: string): boolean {
    const held = this.held;
    if (
      held === undefined ||
      held.accessToken !== token ||
      this.stopped ||
      held.usableUntilMono === Number.NEGATIVE_INFINITY
    )
      return false;
    this.held = { ...held, usableUntilMono: Number.NEGATIVE_INFINITY, expiresAtMono: Number.NEGATIVE_INFINITY };
    this.lastAttemptEndMono = Number.NEGATIVE_INFINITY;
    this.log.info('access token refused by the platform; refreshing');
    this.background();
    return true;
  }

  /** Refresh now (diagnostics, tests); joins a refresh already in flight. */
  async refreshNow(): Promise<AccessTokenInfo> {
    if (this.stopped) throw stoppedError();
    return (await this.attempt()).info;
  }

  /** Drops every token (e.g. the device certificate changed); the next call grants anew. */
  reset(): void {
    this.clearTimer();
    this.held = undefined;
    this.lastError = undefined;
    this.failuresInRow = 0;
    this.lastAttemptEndMono = Number.NEGATIVE_INFINITY;
    this.setState('idle');
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.clearTimer();
    this.held = undefined;
    this.setState('stopped');
    this.settleWaiters(stoppedError());
  }

  status(): TokenStatus {
    const h = this.held;
    const valid = h !== undefined && this.opts.clock.mono() < h.expiresAtMono;
    const s: TokenStatus = {
      clientId: this.clientId,
      flow: this.opts.source.flow,
      state: this.state,
      hasToken: valid,
      counts: { ...this.counts },
    };
    if (h !== undefined && valid) {
      if (h.info.merchantId !== undefined) s.merchantId = h.info.merchantId;
      if (h.info.username !== undefined) s.username = h.info.username;
      s.scopes = h.info.scopes;
      s.expiresAt = new Date(h.expiresAtWall).toISOString();
      s.refreshAt = new Date(h.refreshAtWall).toISOString();
      s.bound = h.info.boundThumbprint !== undefined;
    }
    if (this.lastError !== undefined) {
      s.lastError = {
        code: this.lastError.err.code,
        message: this.lastError.err.message,
        at: new Date(this.lastError.atWall).toISOString(),
      };
    }
    if (this.nextRetryWall !== undefined) s.nextRetryAt = new Date(this.nextRetryWall).toISOString();
    return s;
  }

  get currentState(): TokenState {
    return this.state;
  }

  private usable(): boolean {
    return this.held !== undefined && this.opts.clock.mono() < this.held.usableUntilMono;
  }

  private background(): void {
    this.attempt().catch(() => {
      // Recorded in status and logged by fail(); a retry is scheduled.
    });
  }

  /** Single flight: every caller during an attempt shares it. */
  private attempt(): Promise<Held> {
    if (this.inflight !== undefined) return this.inflight;
    this.clearTimer();
    this.setState(this.held === undefined ? 'acquiring' : 'refreshing');
    const p = Promise.resolve()
      .then(() => this.acquire())
      .then(
        (held) => {
          this.inflight = undefined;
          this.succeed(held);
          return held;
        },
        (err: unknown) => {
          this.inflight = undefined;
          this.fail(err);
          throw asAgentError(err);
        },
      );
    this.inflight = p;
    return p;
  }

  private async acquire(): Promise<Held> {
    const source = this.opts.source;
    let reloaded = false;
    /** Reads the merchant credentials again once per attempt after the client was refused (a renewed secret). */
    const reloadOnce = async (err: unknown): Promise<boolean> => {
      if (reloaded || source.reloadCredentials === undefined || !isAgentError(err, ErrorCodes.AUTH_INVALID_CLIENT))
        return false;
      reloaded = true;
      this.counts.credentialReloads++;
      this.log.warn(
        {
          status: isPlatformError(err) ? err.status : undefined,
          error: isPlatformError(err) ? err.errorCode : undefined,
        },
        'client refused; reading the merchant credentials again',
      );
      await source.reloadCredentials();
      return true;
    };
    for (;;) {
      const held = this.held;
      const rt = held?.refreshToken;
      const pending =
        held !== undefined &&
        rt !== undefined &&
        (held.refreshExpiresAtMono === undefined || this.opts.clock.mono() < held.refreshExpiresAtMono)
          ? source.refresh?.(rt, held.info)
          : undefined;
      if (pending !== undefined && rt !== undefined) {
        this.counts.refreshes++;
        let outcome: GrantOutcome;
        try {
          outcome = await pending;
        } catch (err) {
          if (!isRefusal(err)) throw err;
          // Any refused refresh (invalid_grant, unsupported_grant_type, invalid_request,
          // unauthorized_client, …) is followed by a new grant at once, so that the token
          // never runs out for want of a refresh (docs/platform-contract.md, "Tokens").
          this.dropRefreshToken(rt);
          this.counts.regrants++;
          this.log.info({ status: err.status, error: err.errorCode }, 'refresh refused; granting again');
          await reloadOnce(err);
          continue;
        }
        // RFC 6749 section 6: without a new refresh token the old one stays in use.
        return this.accept(outcome, rt);
      }
      if (rt !== undefined) this.dropRefreshToken(rt);
      try {
        this.counts.grants++;
        return this.accept(await source.grant(), undefined);
      } catch (err) {
        if (await reloadOnce(err)) continue;
        throw err;
      }
    }
  }

  private dropRefreshToken(rt: string): void {
    if (this.held !== undefined && this.held.refreshToken === rt) this.held = { ...this.held, refreshToken: undefined };
  }

  private accept(outcome: GrantOutcome, previousRefreshToken: string | undefined): Held {
    const { response, timing } = outcome;
    // The platform's clock at receipt: its Date header, else the token's iat, else ours.
    // Both are whole seconds, so the platform may be up to 1 s further than they say.
    const iat = decodeJwtPayload(response.access_token).iat;
    const platformNowMs = timing.dateMs ?? (iat !== undefined ? iat * 1000 : timing.receivedAtMs);
    const truncationMs = timing.dateMs !== undefined || iat !== undefined ? 1_000 : 0;
    const info = checkAccessToken(response.access_token, {
      clientId: this.opts.source.clientId(),
      thumbprint: this.opts.thumbprint,
      leewaySeconds: this.opts.leewaySeconds,
      platformNowMs,
    });
    this.opts.skew.record(timing, info.issuedAt === undefined ? undefined : info.issuedAt.getTime() / 1000);
    // Lifetime from receipt on the monotonic clock; exp shortens it if it says less.
    const lifetimeMs = Math.max(
      0,
      Math.min(response.expires_in * 1000, info.expiresAt.getTime() - platformNowMs - truncationMs),
    );
    const refreshInMs = Math.max(lifetimeMs * this.opts.refreshRatio, MIN_REFRESH_MS);
    const rtSeconds = response.refresh_expires_in;
    return {
      accessToken: response.access_token,
      refreshToken: response.refresh_token ?? previousRefreshToken,
      info,
      expiresAtMono: timing.receivedMono + lifetimeMs,
      usableUntilMono: timing.receivedMono + lifetimeMs - Math.min(MAX_USE_MARGIN_MS, lifetimeMs * 0.1),
      refreshAtMono: timing.receivedMono + refreshInMs,
      // Keycloak reports 0 for refresh tokens without expiry.
      refreshExpiresAtMono:
        rtSeconds !== undefined && rtSeconds > 0 ? timing.receivedMono + rtSeconds * 1000 : undefined,
      expiresAtWall: timing.receivedAtMs + lifetimeMs,
      refreshAtWall: timing.receivedAtMs + refreshInMs,
    };
  }

  private succeed(held: Held): void {
    if (this.stopped) return;
    const first = this.held === undefined;
    this.held = held;
    this.failuresInRow = 0;
    this.lastError = undefined;
    this.nextRetryWall = undefined;
    this.lastAttemptEndMono = this.opts.clock.mono();
    this.log.info(
      {
        merchantId: held.info.merchantId,
        scopes: held.info.scopes,
        expiresInS: Math.round((held.expiresAtMono - this.opts.clock.mono()) / 1000),
        bound: held.info.boundThumbprint !== undefined,
      },
      first ? 'access token acquired' : 'access token refreshed',
    );
    this.state = 'valid';
    this.schedule(held.refreshAtMono - this.opts.clock.mono());
    this.opts.onChange?.(this);
    this.settleWaiters();
  }

  private fail(raw: unknown): void {
    this.counts.failures++;
    this.lastAttemptEndMono = this.opts.clock.mono();
    if (this.stopped) return;
    const err = asAgentError(raw);
    const transient = isTransientAuthError(raw);
    this.lastError = { err, atWall: this.opts.clock.wall(), transient };
    let delay: number;
    let state: TokenState;
    if (transient) {
      const retryAfter = isPlatformError(raw) ? raw.retryAfterMs : undefined;
      delay = backoffDelay(this.failuresInRow, this.opts.backoff, retryAfter);
      this.failuresInRow++;
      state = 'retrying';
    } else {
      delay = this.opts.slowRetryMs;
      state = STATE_OF[err.code] ?? 'config_fault';
    }
    this.log.warn({ code: err.code, retryInMs: Math.round(delay), state }, `token request failed: ${err.message}`);
    this.nextRetryWall = this.opts.clock.wall() + delay;
    this.schedule(delay);
    this.setState(state);
    if (!transient) this.settleWaiters(err);
  }

  private schedule(delayMs: number): void {
    this.clearTimer();
    if (this.stopped) return;
    // The Clock's timers do not keep the process alive (systemClock unrefs them).
    this.timer = this.opts.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.background();
      },
      Math.max(0, delayMs),
    );
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private setState(state: TokenState): void {
    if (this.state === state) return;
    this.state = state;
    this.opts.onChange?.(this);
  }

  private settleWaiters(err?: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (err === undefined) w.resolve();
      else w.reject(err);
    }
  }
}

function stoppedError(): AgentError {
  return new AgentError(ErrorCodes.AUTH_STOPPED, 'authentication is stopped');
}
