import type { Logger } from '../core/index.js';
import { AgentError, isAgentError, ErrorCodes, backoffDelay, sleep, type BackoffOptions } from '../core/index.js';
import type { EventBus } from '../events/index.js';
import type { DispatcherSource, BearerProvider } from '../platform/index.js';
import { isPlatformError, systemClock, type HttpClock } from '../platform/index.js';
import { ClockSkewMeter, type ClockSkew } from './clock-skew.js';
import type { AccessTokenInfo } from './jwt.js';
import { fetchMerchantCredentials, findMerchant, selectMerchant, summary, type MerchantCredentials, type MerchantSummary } from './merchant-credentials.js';
import { ClientCredentialsSource, PasswordSource, type MerchantSlot } from './sources.js';
import { TokenEndpoint } from './token-endpoint.js';
import { TokenManager, isTransientAuthError, type TokenState, type TokenStatus } from './token-manager.js';

/** What auth needs of the device identity (a DeviceIdentity fits). */
export interface AuthIdentity {
  serialNumber: string;
  /** RFC 8705 x5t#S256 of the device certificate. */
  thumbprint: string;
  /** When given, no token request goes out outside the certificate's validity window. */
  notBefore?: Date;
  notAfter?: Date;
}

/** The `auth` section of the configuration, as this service needs it. */
export interface AuthSettings {
  mode: 'client_credentials' | 'password';
  /** clientId or merchant name of the default merchant when the terminal serves several. */
  merchantId?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /** The platform's designated application for the password grant. */
  poweredClientId?: string | undefined;
  refreshRatio: number;
  leewaySeconds: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Between attempts after a failure retrying soon will not fix; default backoffCapMs. */
  slowRetryMs?: number;
}

export interface AuthServiceOptions {
  /** Our device identity: the serial number names the terminal, the thumbprint binds tokens. */
  identity: AuthIdentity;
  endpoints: { authUrl: string; deviceAuthUrl: string };
  /** The mTLS dispatchers (one per host). */
  dispatchers: DispatcherSource;
  settings: AuthSettings;
  log: Logger;
  bus?: EventBus;
  clock?: HttpClock;
  /** For backoff jitter; tests make it deterministic. */
  random?: () => number;
}

export type AuthServiceState = 'idle' | 'starting' | 'ready' | 'degraded' | 'error' | 'stopped';

export interface MerchantStatus extends MerchantSummary {
  /** Platform merchant id (token claim entityId), once a token was seen. */
  merchantId?: string;
  default: boolean;
}

export interface AuthStatus {
  /** ready: the default merchant holds a token; degraded: it does, or is getting one, but something is wrong (see tokens, clockSkew). */
  state: AuthServiceState;
  /** The default merchant holds a valid token (what a health check asks). */
  hasToken: boolean;
  mode: AuthSettings['mode'];
  serialNumber: string;
  /** Our certificate's x5t#S256 (not a secret). */
  thumbprint: string;
  merchants: MerchantStatus[];
  tokens: TokenStatus[];
  clockSkew?: ClockSkew;
  /** Failure reading the merchant credentials, if that is what stands in the way. */
  lastError?: { code: string; message: string; at: string };
}

const ERROR_STATES: ReadonlySet<TokenState> = new Set(['config_fault', 'binding_mismatch', 'cert_refused', 'cert_expired', 'unknown_terminal', 'token_invalid']);

/**
 * Device authentication for the whole agent: the terminal's merchants (spec endpoint 3),
 * one TokenManager per merchant, the default merchant, clock skew and status. It is the
 * BearerProvider of the platform client. Tokens live in memory only.
 */
export class AuthService implements BearerProvider {
  private readonly log: Logger;
  private readonly clock: HttpClock;
  private readonly endpoint: TokenEndpoint;
  private readonly skew: ClockSkewMeter;
  private readonly backoff: BackoffOptions;
  private readonly managers = new Map<string, TokenManager>();
  private readonly slots = new Map<string, MerchantSlot>();
  /** entityId (merchant id) → clientId, learnt from tokens. */
  private readonly merchantIds = new Map<string, string>();
  private merchantList: MerchantCredentials[] | undefined;
  private defaultClientId: string | undefined;
  private credentialsInflight: Promise<void> | undefined;
  private credentialsError: { code: string; message: string; at: string } | undefined;
  private identity: AuthIdentity;
  private phase: 'idle' | 'starting' | 'started' | 'stopped' = 'idle';
  private readonly stopController = new AbortController();

  constructor(private readonly opts: AuthServiceOptions) {
    this.log = opts.log.child({ module: 'auth' });
    this.clock = opts.clock ?? systemClock;
    this.identity = { ...opts.identity };
    this.endpoint = new TokenEndpoint({ ...opts.endpoints, dispatchers: opts.dispatchers, clock: this.clock });
    this.skew = new ClockSkewMeter(opts.settings.leewaySeconds * 1000);
    this.backoff = {
      baseMs: opts.settings.backoffBaseMs,
      capMs: opts.settings.backoffCapMs,
      ...(opts.random !== undefined ? { random: opts.random } : {}),
    };
    if (opts.settings.mode === 'password') {
      const { username, password } = opts.settings;
      if (username === undefined || username === '' || password === undefined || password === '') {
        throw new AgentError(ErrorCodes.CONFIG_INVALID, 'config: auth.mode is password but auth.username or auth.password is not set');
      }
    }
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
    const abort = signal === undefined ? this.stopController.signal : AbortSignal.any([signal, this.stopController.signal]);
    try {
      if (this.opts.settings.mode === 'client_credentials') {
        for (let attempt = 0; this.merchantList === undefined; attempt++) {
          try {
            await this.loadCredentials();
          } catch (err) {
            if (!isTransientAuthError(err)) throw err;
            const wait = backoffDelay(attempt, this.backoff, isPlatformError(err) ? err.retryAfterMs : undefined);
            this.log.warn({ code: isAgentError(err) ? err.code : undefined, retryInMs: wait }, `merchant credentials not read: ${describe(err)}`);
            await sleep(wait, abort);
          }
        }
      }
      const manager = this.defaultManager();
      await abortable(manager.start(), abort);
      this.phase = 'started';
      const info = manager.info;
      const merchant = this.defaultClientId === undefined ? undefined : this.slots.get(this.defaultClientId)?.credentials;
      this.log.info(
        {
          serialNumber: this.identity.serialNumber,
          mode: this.opts.settings.mode,
          clientId: manager.clientId,
          merchantName: merchant?.merchantName,
          merchantId: info?.merchantId,
          username: info?.username,
          merchants: this.merchantList?.length,
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
    const manager = await this.managerFor(merchantId);
    return manager.token();
  }

  /** The platform answered 401 to `token`: the manager holding it refreshes (once, however many callers saw it). */
  invalidate(_merchantId: string | undefined, token: string): void {
    for (const m of this.managers.values()) if (m.invalidate(token)) return;
  }

  /** Claims of the token held for `merchantId` (default merchant when omitted). */
  tokenInfo(merchantId?: string): AccessTokenInfo | undefined {
    const clientId = merchantId === undefined ? this.defaultClientId ?? this.onlyManagerId() : this.resolveKnown(merchantId);
    return clientId === undefined ? undefined : this.managers.get(clientId)?.info;
  }

  /** Refresh now (diagnostics); returns the new token's claims. */
  async refreshNow(merchantId?: string): Promise<AccessTokenInfo> {
    return (await this.managerFor(merchantId)).refreshNow();
  }

  /** The terminal's merchants, without secrets. */
  merchants(): MerchantStatus[] {
    const byClient = new Map([...this.merchantIds].map(([entity, client]) => [client, entity]));
    return (this.merchantList ?? []).map((m) => {
      const merchantId = byClient.get(m.clientId);
      return { ...summary(m), ...(merchantId !== undefined ? { merchantId } : {}), default: m.clientId === this.defaultClientId };
    });
  }

  /**
   * The device certificate changed (DESIGN.md): every token bound to the old one is
   * dropped. The caller replaces the dispatchers first.
   */
  replaceIdentity(identity: AuthIdentity): void {
    for (const m of this.managers.values()) m.stop();
    this.managers.clear();
    if (identity.serialNumber !== this.identity.serialNumber) {
      // Another terminal: its merchants must be read again.
      this.merchantList = undefined;
      this.slots.clear();
      this.merchantIds.clear();
      this.defaultClientId = undefined;
    }
    this.identity = identity;
    this.log.info({ serialNumber: identity.serialNumber }, 'device certificate changed: tokens dropped');
    this.publishOverall();
  }

  status(): AuthStatus {
    const tokens = [...this.managers.values()].map((m) => m.status());
    const main = this.mainManager();
    const s: AuthStatus = {
      state: this.overallState(),
      hasToken: this.phase !== 'stopped' && main !== undefined && main.status().hasToken,
      mode: this.opts.settings.mode,
      serialNumber: this.identity.serialNumber,
      thumbprint: this.identity.thumbprint,
      merchants: this.merchants(),
      tokens,
    };
    const skew = this.skew.current();
    if (skew !== undefined) s.clockSkew = skew;
    if (this.credentialsError !== undefined) s.lastError = this.credentialsError;
    return s;
  }

  stop(): void {
    if (this.phase === 'stopped') return;
    this.phase = 'stopped';
    this.stopController.abort(stopped());
    for (const m of this.managers.values()) m.stop();
    this.publishOverall();
  }

  /**
   * A platform refusing an expired certificate over TLS 1.3 just closes the connection,
   * which looks like a network fault; our own clock says it plainly (DESIGN.md:
   * notBefore in the future is a clock fault).
   */
  private checkCertificate(): void {
    const now = this.clock.wall();
    const { notBefore, notAfter, serialNumber } = this.identity;
    if (notAfter !== undefined && now >= notAfter.getTime()) {
      throw new AgentError(ErrorCodes.CERT_EXPIRED, `device certificate of terminal ${serialNumber} expired on ${notAfter.toISOString()}: install a renewed certificate`, {
        details: { notAfter: notAfter.toISOString() },
      });
    }
    if (notBefore !== undefined && now < notBefore.getTime()) {
      throw new AgentError(
        ErrorCodes.CERT_NOT_YET_VALID,
        `device certificate of terminal ${serialNumber} is not valid before ${notBefore.toISOString()}: check the terminal's clock`,
        { details: { notBefore: notBefore.toISOString() } },
      );
    }
  }

  private overallState(): AuthServiceState {
    if (this.phase === 'stopped') return 'stopped';
    const main = this.mainManager();
    if (main === undefined) {
      if (this.credentialsError !== undefined) return this.phase === 'starting' ? 'degraded' : 'error';
      return this.phase === 'idle' ? 'idle' : 'starting';
    }
    const st = main.status();
    if (st.hasToken) return ERROR_STATES.has(st.state) || st.state === 'retrying' || this.skew.current()?.exceedsLeeway === true ? 'degraded' : 'ready';
    if (ERROR_STATES.has(st.state)) return 'error';
    if (st.state === 'retrying') return 'degraded';
    return 'starting';
  }

  private mainManager(): TokenManager | undefined {
    const id = this.defaultClientId ?? this.onlyManagerId();
    return id === undefined ? undefined : this.managers.get(id);
  }

  private onlyManagerId(): string | undefined {
    return this.managers.size === 1 ? [...this.managers.keys()][0] : undefined;
  }

  /** Spec endpoint 3; one read in flight at a time. */
  private loadCredentials(): Promise<void> {
    if (this.credentialsInflight !== undefined) return this.credentialsInflight;
    const p = (async () => {
      try {
        this.checkCertificate();
        const list = await fetchMerchantCredentials({
          authUrl: this.opts.endpoints.authUrl,
          serialNumber: this.identity.serialNumber,
          dispatchers: this.opts.dispatchers,
          clock: this.clock,
        });
        this.credentialsError = undefined;
        this.applyCredentials(list);
      } catch (err) {
        this.credentialsError = { code: isAgentError(err) ? err.code : ErrorCodes.INTERNAL, message: describe(err), at: new Date(this.clock.wall()).toISOString() };
        throw err;
      } finally {
        this.credentialsInflight = undefined;
      }
    })();
    this.credentialsInflight = p;
    return p;
  }

  private applyCredentials(list: MerchantCredentials[]): void {
    const first = this.merchantList === undefined;
    this.merchantList = list;
    for (const m of list) {
      const slot = this.slots.get(m.clientId);
      if (slot === undefined) this.slots.set(m.clientId, { credentials: m });
      else slot.credentials = m;
    }
    if (first) {
      const { merchant, ambiguous } = selectMerchant(list, this.opts.settings.merchantId);
      this.defaultClientId = merchant.clientId;
      const names = list.map((m) => `${m.merchantName} [${m.clientId}]`).join(', ');
      if (ambiguous) {
        this.log.warn({ merchants: list.map(summary) }, `terminal serves several merchants (${names}); using ${merchant.merchantName} by default: set auth.merchantId to choose`);
      } else {
        this.log.info({ merchants: list.map(summary), default: merchant.clientId }, `merchant credentials read: ${names}`);
      }
    }
  }

  private managerOf(clientId: string): TokenManager {
    let m = this.managers.get(clientId);
    if (m !== undefined) return m;
    const slot = this.slots.get(clientId);
    if (slot === undefined) throw new AgentError(ErrorCodes.AUTH_NO_MERCHANT, `no merchant credentials for client ${clientId}`);
    m = this.createManager(new ClientCredentialsSource(slot, this.endpoint, () => this.loadCredentials(), () => this.checkCertificate()));
    this.managers.set(clientId, m);
    return m;
  }

  private createManager(source: ClientCredentialsSource | PasswordSource): TokenManager {
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

  private defaultManager(): TokenManager {
    if (this.opts.settings.mode === 'password') return this.passwordManager();
    if (this.defaultClientId === undefined) throw new AgentError(ErrorCodes.AUTH_NO_MERCHANT, 'merchant credentials have not been read yet');
    return this.managerOf(this.defaultClientId);
  }

  private passwordManager(): TokenManager {
    const s = this.opts.settings;
    const clientId = s.poweredClientId ?? 'powered-app';
    let m = this.managers.get(clientId);
    if (m === undefined) {
      m = this.createManager(
        new PasswordSource({ clientId, username: s.username ?? '', password: s.password ?? '' }, this.endpoint, () => this.checkCertificate()),
      );
      this.managers.set(clientId, m);
    }
    return m;
  }

  private resolveKnown(wanted: string): string | undefined {
    const byCreds = this.merchantList === undefined ? undefined : findMerchant(this.merchantList, wanted);
    return byCreds?.clientId ?? this.merchantIds.get(wanted) ?? (this.managers.has(wanted) ? wanted : undefined);
  }

  /**
   * `wanted` may be a clientId, a merchant name or the platform merchant id (entityId);
   * the latter is only known from a token, so merchants not yet seen get one first.
   */
  private async managerFor(wanted: string | undefined): Promise<TokenManager> {
    if (this.opts.settings.mode === 'password') {
      const m = this.passwordManager();
      const entity = m.info?.merchantId;
      if (wanted === undefined || wanted === m.clientId || wanted === entity || entity === undefined) return m;
      throw new AgentError(ErrorCodes.AUTH_NO_MERCHANT, `the logged-in user does not act for merchant ${wanted}`);
    }
    if (this.merchantList === undefined) await this.loadCredentials();
    if (wanted === undefined) return this.defaultManager();
    const known = this.resolveKnown(wanted);
    if (known !== undefined) return this.managerOf(known);
    const unseen = (this.merchantList ?? []).filter((m) => ![...this.merchantIds.values()].includes(m.clientId));
    await Promise.allSettled(unseen.map((m) => this.managerOf(m.clientId).token()));
    const found = this.merchantIds.get(wanted);
    if (found !== undefined) return this.managerOf(found);
    throw new AgentError(ErrorCodes.AUTH_NO_MERCHANT, `merchant ${wanted} is not one of this terminal's merchants`, {
      details: { wanted, merchants: (this.merchantList ?? []).map(summary) },
    });
  }

  private onManagerChange(m: TokenManager): void {
    const st = m.status();
    if (st.merchantId !== undefined) this.merchantIds.set(st.merchantId, m.clientId);
    const data: { state: string; clientId: string; merchantId?: string; expiresAt?: string; reason?: string } = { state: st.state, clientId: m.clientId };
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

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
