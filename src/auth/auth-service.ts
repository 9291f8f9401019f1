import {
  AgentError,
  isAgentError,
  ErrorCodes,
  backoffDelay,
  describeError,
  systemClock,
  type Clock,
  type Logger,
  type BackoffOptions,
} from '../core/index.js';
import type { EventBus } from '../events/index.js';
import { isPlatformError, type DispatcherSource, type BearerProvider } from '../platform/index.js';
import type { AuthSettings } from './auth-settings.js';
import {
  overallState,
  type AuthPhase,
  type AuthServiceState,
  type AuthStatus,
  type MerchantStatus,
} from './auth-status.js';
import { checkCertificateValidity, type AuthIdentity } from './certificate-check.js';
import { ClockSkewMeter } from './clock-skew.js';
import { CredentialsDirectory } from './credentials-directory.js';
import type { AccessTokenInfo } from './jwt.js';
import { MerchantChoice } from './merchant-choice.js';
import { MerchantSignIn } from './merchant-sign-in.js';
import { CustomTokenSource, type ClientCredentialsSource, type PasswordSource } from './sources.js';
import { TokenEndpoint } from './token-endpoint.js';
import { TokenManager, isTransientAuthError } from './token-manager.js';

export interface AuthServiceOptions {
  /** Our device identity: the serial number names the terminal, the thumbprint binds tokens. */
  identity: AuthIdentity;
  endpoints: { authUrl: string; deviceAuthUrl: string };
  /** The mTLS dispatchers (one per host). */
  dispatchers: DispatcherSource;
  settings: AuthSettings;
  log: Logger;
  bus?: EventBus;
  /** The agent's one Clock (docs/architecture.md, "Time"): token expiry, refresh and retry timers. */
  clock?: Clock;
  /** For backoff jitter; tests make it deterministic. */
  random?: () => number;
}

/**
 * Device authentication for the whole agent, a facade over its parts: the terminal's
 * merchants (credentials-directory.ts), one TokenManager per merchant and the choice
 * among them (merchant-choice.ts), the certificate check (certificate-check.ts) and the
 * overall status (auth-status.ts). It is the BearerProvider of the platform client.
 * Tokens live in memory only.
 */
export class AuthService implements BearerProvider {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly skew: ClockSkewMeter;
  private readonly backoff: BackoffOptions;
  private readonly directory: CredentialsDirectory;
  private readonly choice: MerchantChoice;
  private identity: AuthIdentity;
  private phase: AuthPhase = 'idle';
  /** custom_token mode only: the merchant's sign-in with the platform. */
  readonly platformSignIn: MerchantSignIn | undefined;
  private readonly stopController = new AbortController();

  constructor(private readonly opts: AuthServiceOptions) {
    this.log = opts.log.child({ module: 'auth' });
    this.clock = opts.clock ?? systemClock();
    this.identity = { ...opts.identity };
    const endpoint = new TokenEndpoint({ ...opts.endpoints, dispatchers: opts.dispatchers, clock: this.clock });
    this.skew = new ClockSkewMeter(opts.settings.leewaySeconds * 1000, this.log);
    this.backoff = {
      baseMs: opts.settings.backoffBaseMs,
      capMs: opts.settings.backoffCapMs,
      ...(opts.random !== undefined ? { random: opts.random } : {}),
    };
    if (opts.settings.mode === 'password') {
      const { username, password } = opts.settings;
      if (username === undefined || username === '' || password === undefined || password === '') {
        throw new AgentError(
          ErrorCodes.CONFIG_INVALID,
          'config: auth.mode is password but auth.username or auth.password is not set',
        );
      }
    }
    let customToken: CustomTokenSource | undefined;
    if (opts.settings.mode === 'custom_token') {
      const ct = opts.settings.customToken;
      if (ct === undefined)
        throw new AgentError(
          ErrorCodes.CONFIG_INVALID,
          'config: auth.mode is custom_token but auth.customToken is not set',
        );
      const signIn = new MerchantSignIn({
        settings: ct,
        endpoint,
        thumbprint: opts.identity.thumbprint,
        leewaySeconds: opts.settings.leewaySeconds,
        clock: this.clock,
        log: this.log,
      });
      this.platformSignIn = signIn;
      // The exact form of the spec's custom-token call: device_model, device_id, method (docs/platform-contract.md, "Tokens").
      customToken = new CustomTokenSource(
        {
          realm: ct.realm,
          clientId: ct.clientId,
          merchantToken: () => signIn.merchantToken(),
          device: {
            deviceModel: ct.deviceModel,
            deviceId: ct.deviceId ?? opts.identity.serialNumber,
            method: ct.method,
          },
        },
        endpoint,
      );
      signIn.onSignedIn(() => this.onMerchantSignedIn());
    }
    const guard = (): void => checkCertificateValidity(this.identity, this.clock.wall());
    this.directory = new CredentialsDirectory({
      authUrl: opts.endpoints.authUrl,
      dispatchers: opts.dispatchers,
      clock: this.clock,
      log: this.log,
      merchantId: opts.settings.merchantId,
      serialNumber: () => this.identity.serialNumber,
      guard,
    });
    this.choice = new MerchantChoice({
      settings: opts.settings,
      directory: this.directory,
      endpoint,
      newManager: (source) => this.newManager(source),
      guard,
      ...(customToken !== undefined ? { customToken } : {}),
    });
  }

  /**
   * Reads the merchant credentials (client_credentials mode) and gets the default
   * merchant's first token. Transient failures are retried with backoff until `signal`
   * aborts or stop(); a failure retrying will not fix (unknown terminal, refused
   * certificate or client, binding mismatch) rejects at once, while slow retries go on.
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.phase === 'stopped') throw stopped();
    this.phase = 'starting';
    const abort =
      signal === undefined ? this.stopController.signal : AbortSignal.any([signal, this.stopController.signal]);
    try {
      if (this.platformSignIn !== undefined && !this.platformSignIn.signedIn) {
        // custom_token: no device token can be asked for before the merchant signs in on the counter page.
        this.log.info(
          'waiting for the merchant to sign in with the platform on the counter page (auth.mode custom_token)',
        );
        this.publishOverall();
        await this.platformSignIn.whenSignedIn(abort);
      }
      if (this.opts.settings.mode === 'client_credentials') {
        for (let attempt = 0; this.directory.merchants === undefined; attempt++) {
          try {
            await this.directory.load();
          } catch (err) {
            if (!isTransientAuthError(err)) throw err;
            const wait = backoffDelay(attempt, this.backoff, isPlatformError(err) ? err.retryAfterMs : undefined);
            this.log.warn(
              { code: isAgentError(err) ? err.code : undefined, retryInMs: wait },
              `merchant credentials not read: ${describeError(err)}`,
            );
            await this.clock.sleep(wait, abort);
          }
        }
      }
      const manager = this.choice.defaultManager();
      await abortable(manager.start(), abort);
      this.phase = 'started';
      const info = manager.info;
      const defaultId = this.directory.defaultClientId;
      const merchant = defaultId === undefined ? undefined : this.directory.slot(defaultId)?.credentials;
      this.log.info(
        {
          mode: this.opts.settings.mode,
          clientId: manager.clientId,
          merchantName: merchant?.merchantName,
          merchantId: info?.merchantId,
          username: info?.username,
          merchants: this.directory.merchants?.length,
        },
        `authenticated: terminal ${this.identity.serialNumber} acts for ${merchant?.merchantName ?? info?.username ?? manager.clientId}${info?.merchantId ? ` (merchant ${info.merchantId})` : ''}`,
      );
      this.publishOverall();
    } catch (err) {
      if (this.phase === 'starting') this.phase = 'idle';
      throw err;
    }
  }

  /** A current access token of `merchantId` (clientId, merchant name or platform merchant id; default: the default merchant). */
  async tokenFor(merchantId?: string): Promise<string> {
    if (this.phase === 'stopped') throw stopped();
    const manager = await this.choice.managerFor(merchantId);
    return manager.token();
  }

  /** The platform answered 401 to `token`: the manager holding it refreshes (once, however many callers saw it). */
  invalidate(_merchantId: string | undefined, token: string): void {
    for (const m of this.choice.all()) if (m.invalidate(token)) return;
  }

  /** Claims of the token held for `merchantId` (default merchant when omitted). */
  tokenInfo(merchantId?: string): AccessTokenInfo | undefined {
    const clientId = this.choice.knownClientId(merchantId);
    return clientId === undefined ? undefined : this.choice.get(clientId)?.info;
  }

  /** Refresh now (diagnostics); returns the new token's claims. */
  async refreshNow(merchantId?: string): Promise<AccessTokenInfo> {
    return (await this.choice.managerFor(merchantId)).refreshNow();
  }

  /**
   * Before a sale names a merchant: refuses (AUTH_NO_MERCHANT) one the terminal does not
   * serve. While the credentials were never read (the platform unreachable since start)
   * there is nothing to check against, and the sale takes its own path (offline when
   * allowed); a merchant on the list passes without a network call.
   */
  async checkMerchant(merchantId: string): Promise<void> {
    if (this.merchants().length === 0) return;
    // The same resolution a token request makes (clientId, merchant name, learnt merchant id).
    if (this.choice.knownClientId(merchantId) !== undefined) return;
    await this.tokenFor(merchantId);
  }

  /**
   * Every name the terminal knows `merchantId` by (default merchant when omitted): as given,
   * its clientId, merchant name and platform merchant id once seen; for settings keyed by
   * merchant (payments.captureMode), so a key in any spelling finds a sale in any other.
   */
  merchantNames(merchantId?: string): string[] {
    const clientId = this.choice.knownClientId(merchantId);
    const status = clientId === undefined ? undefined : this.merchants().find((m) => m.clientId === clientId);
    const names = [
      merchantId,
      clientId,
      status?.merchantName,
      status?.merchantId,
      this.tokenInfo(merchantId)?.merchantId,
    ];
    return [...new Set(names.filter((n): n is string => n !== undefined && n !== ''))];
  }

  /** The terminal's merchants, without secrets. */
  merchants(): MerchantStatus[] {
    return this.directory.statuses();
  }

  /**
   * The device certificate changed: every token bound to the old one is dropped. The
   * caller replaces the dispatchers first.
   */
  replaceIdentity(identity: AuthIdentity): void {
    this.choice.stopAll({ forget: true });
    // Another terminal: its merchants must be read again.
    if (identity.serialNumber !== this.identity.serialNumber) this.directory.forget();
    this.identity = identity;
    this.log.info({ newSerialNumber: identity.serialNumber }, 'device certificate changed: tokens dropped');
    this.publishOverall();
  }

  status(): AuthStatus {
    const tokens = this.choice.all().map((m) => m.status());
    const main = this.choice.main();
    const s: AuthStatus = {
      state: this.overallState(),
      hasToken: this.phase !== 'stopped' && main !== undefined && main.status().hasToken,
      mode: this.opts.settings.mode,
      serialNumber: this.identity.serialNumber,
      thumbprint: this.identity.thumbprint,
      merchants: this.merchants(),
      tokens,
    };
    if (this.platformSignIn !== undefined) s.signInRequired = !this.platformSignIn.signedIn;
    const skew = this.skew.current();
    if (skew !== undefined) s.clockSkew = skew;
    const lastError = this.directory.lastError;
    if (lastError !== undefined) s.lastError = lastError;
    return s;
  }

  /**
   * The platform's clock now, from the token answers' Date header and iat and the
   * monotonic clock since (ClockSkewMeter.platformNow); undefined until a token answer came.
   * The event relay judges a QR's expiry on it (docs/payments.md, "Event relay").
   */
  platformNow(): number | undefined {
    return this.skew.platformNow(this.clock.mono());
  }

  stop(): void {
    if (this.phase === 'stopped') return;
    this.phase = 'stopped';
    this.stopController.abort(stopped());
    this.choice.stopAll({ forget: false });
    this.publishOverall();
  }

  private overallState(): AuthServiceState {
    return overallState({
      phase: this.phase,
      main: this.choice.main()?.status(),
      credentialsFailed: this.directory.lastError !== undefined,
      skewExceedsLeeway: this.skew.current()?.exceedsLeeway === true,
    });
  }

  /**
   * A new sign-in after a device token was asked for without one (before the first
   * sign-in, or after the merchant's sign-in ran out): ask again now instead of at the next slow retry.
   */
  private onMerchantSignedIn(): void {
    const m = this.choice.main();
    if (
      m !== undefined &&
      m.currentState !== 'valid' &&
      m.currentState !== 'refreshing' &&
      m.currentState !== 'acquiring'
    ) {
      // Its last failure (no sign-in) is over: forget it and its slow retry.
      m.reset();
    }
    this.publishOverall();
    // While start() waits for the sign-in, it starts the manager itself.
    if (this.phase !== 'started' || m === undefined || m.currentState !== 'idle') return;
    m.start().catch((err: unknown) =>
      this.log.warn(
        { code: isAgentError(err) ? err.code : undefined },
        `device token after the merchant's sign-in: ${describeError(err)}`,
      ),
    );
  }

  private newManager(source: ClientCredentialsSource | PasswordSource | CustomTokenSource): TokenManager {
    const s = this.opts.settings;
    return new TokenManager({
      source,
      thumbprint: this.identity.thumbprint,
      refreshRatio: s.refreshRatio,
      leewaySeconds: s.leewaySeconds,
      backoff: this.backoff,
      slowRetryMs: s.slowRetryMs ?? s.backoffCapMs,
      clock: this.clock,
      skew: this.skew,
      log: this.opts.log,
      onChange: (m) => this.onManagerChange(m),
    });
  }

  private onManagerChange(m: TokenManager): void {
    const st = m.status();
    if (st.merchantId !== undefined) this.directory.learn(st.merchantId, m.clientId);
    const data: { state: string; clientId: string; merchantId?: string; expiresAt?: string; reason?: string } = {
      state: st.state,
      clientId: m.clientId,
    };
    if (st.merchantId !== undefined) data.merchantId = st.merchantId;
    if (st.expiresAt !== undefined) data.expiresAt = st.expiresAt;
    if (st.lastError !== undefined && st.state !== 'valid') data.reason = st.lastError.message;
    this.opts.bus?.publish('auth.status', data);
  }

  private publishOverall(): void {
    this.opts.bus?.publish('auth.status', { state: this.overallState() });
  }
}

function stopped(): AgentError {
  return new AgentError(ErrorCodes.AUTH_STOPPED, 'authentication is stopped');
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
