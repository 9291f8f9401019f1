import { AgentError, ErrorCodes, describeError } from '../core/index.js';
import { PlatformError, isPlatformError } from '../platform/index.js';
import type { AuthSettings } from './auth-settings.js';
import type { CredentialsDirectory } from './credentials-directory.js';
import { summary } from './merchant-credentials.js';
import { ClientCredentialsSource, PasswordSource, type CustomTokenSource } from './sources.js';
import type { TokenEndpoint } from './token-endpoint.js';
import type { TokenManager } from './token-manager.js';

export interface MerchantChoiceOptions {
  settings: AuthSettings;
  directory: CredentialsDirectory;
  endpoint: TokenEndpoint;
  /** Builds the token manager of one merchant (client_credentials), of the logged-in user (password) or of the signed-in merchant (custom_token). */
  newManager: (source: ClientCredentialsSource | PasswordSource | CustomTokenSource) => TokenManager;
  /** custom_token mode: the one source, the custom-token call after the merchant's sign-in. */
  customToken?: CustomTokenSource;
  /** Throws when no token request may go out (our certificate is outside its validity window). */
  guard: () => void;
}

/**
 * Which token serves a request: one TokenManager per merchant (client_credentials) or the
 * logged-in user's (password), created on first use, and the choice among them by
 * clientId, merchant name or platform merchant id, defaulting to the default merchant.
 */
export class MerchantChoice {
  private readonly managers = new Map<string, TokenManager>();

  constructor(private readonly opts: MerchantChoiceOptions) {}

  all(): TokenManager[] {
    return [...this.managers.values()];
  }

  /** Stops and forgets every manager (the certificate changed, or auth stops). */
  stopAll(opts: { forget: boolean }): void {
    for (const m of this.managers.values()) m.stop();
    if (opts.forget) this.managers.clear();
  }

  /** The default merchant's manager once it exists (or the only one there is). */
  main(): TokenManager | undefined {
    const id = this.opts.directory.defaultClientId ?? this.onlyId();
    return id === undefined ? undefined : this.managers.get(id);
  }

  /** clientId of the manager serving `merchantId` (default merchant when omitted), among those known. */
  knownClientId(merchantId: string | undefined): string | undefined {
    return merchantId === undefined
      ? (this.opts.directory.defaultClientId ?? this.onlyId())
      : this.resolveKnown(merchantId);
  }

  get(clientId: string): TokenManager | undefined {
    return this.managers.get(clientId);
  }

  defaultManager(): TokenManager {
    if (this.opts.settings.mode === 'password') return this.passwordManager();
    if (this.opts.settings.mode === 'custom_token') return this.customManager();
    const { directory } = this.opts;
    const id = directory.defaultClientId;
    if (id === undefined) {
      // Never read (the platform unreachable since start) is the platform's trouble, not an
      // unknown merchant: the sale goes offline when it may (docs/payments.md, "Offline card sale and upload").
      if (directory.merchants === undefined) throw notReadYet(directory.lastError?.message);
      // Read, but no default among them (none listed, or auth.merchantId not among them): the read said why.
      throw new AgentError(
        ErrorCodes.AUTH_NO_MERCHANT,
        directory.lastError?.message ??
          'no default merchant: the platform lists none for this terminal, or auth.merchantId is not among them',
      );
    }
    return this.managerOf(id);
  }

  /**
   * `wanted` may be a clientId, a merchant name or the platform merchant id (entityId);
   * the latter is only known from a token, so merchants not yet seen get one first.
   */
  async managerFor(wanted: string | undefined): Promise<TokenManager> {
    const { directory } = this.opts;
    if (this.opts.settings.mode === 'password' || this.opts.settings.mode === 'custom_token') {
      const m = this.opts.settings.mode === 'password' ? this.passwordManager() : this.customManager();
      const entity = m.info?.merchantId;
      if (wanted === undefined || wanted === m.clientId || wanted === entity || entity === undefined) return m;
      throw new AgentError(
        ErrorCodes.AUTH_NO_MERCHANT,
        `the ${this.opts.settings.mode === 'password' ? 'logged-in user' : 'signed-in merchant'} does not act for merchant ${wanted}`,
      );
    }
    if (directory.merchants === undefined) await directory.load();
    if (wanted === undefined) return this.defaultManager();
    const known = this.resolveKnown(wanted);
    if (known !== undefined) return this.managerOf(known);
    const tries = await Promise.allSettled(directory.unseen().map((m) => this.managerOf(m.clientId).token()));
    const found = directory.clientIdOf(wanted);
    if (found !== undefined) return this.managerOf(found);
    // A merchant whose platform id no token could show yet (the platform unreachable) may be
    // the one wanted: it cannot be told unknown until every id is learnt (docs/payments.md,
    // "Offline card sale and upload", merchant of an offline sale).
    const unreachable = tries.find(
      (t): t is PromiseRejectedResult => t.status === 'rejected' && isPlatformError(t.reason) && t.reason.transient,
    );
    if (unreachable !== undefined) throw cannotCheck(wanted, unreachable.reason as PlatformError);
    throw new AgentError(ErrorCodes.AUTH_NO_MERCHANT, `merchant ${wanted} is not one of this terminal's merchants`, {
      details: { wanted, merchants: (directory.merchants ?? []).map(summary) },
    });
  }

  private onlyId(): string | undefined {
    return this.managers.size === 1 ? [...this.managers.keys()][0] : undefined;
  }

  private resolveKnown(wanted: string): string | undefined {
    return this.opts.directory.resolve(wanted) ?? (this.managers.has(wanted) ? wanted : undefined);
  }

  private managerOf(clientId: string): TokenManager {
    let m = this.managers.get(clientId);
    if (m !== undefined) return m;
    const { directory, endpoint, guard } = this.opts;
    const slot = directory.slot(clientId);
    if (slot === undefined)
      throw new AgentError(ErrorCodes.AUTH_NO_MERCHANT, `no merchant credentials for client ${clientId}`);
    m = this.opts.newManager(new ClientCredentialsSource(slot, endpoint, () => directory.load(), guard));
    this.managers.set(clientId, m);
    return m;
  }

  /** The signed-in merchant's device token (custom_token mode): one manager, keyed by the realm application's client id. */
  private customManager(): TokenManager {
    const source = this.opts.customToken;
    if (source === undefined)
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        'config: auth.mode is custom_token but no custom-token source was set up',
      );
    let m = this.managers.get(source.clientId());
    if (m === undefined) {
      m = this.opts.newManager(source);
      this.managers.set(source.clientId(), m);
    }
    return m;
  }

  private passwordManager(): TokenManager {
    const s = this.opts.settings;
    const clientId = s.poweredClientId ?? 'powered-app';
    let m = this.managers.get(clientId);
    if (m === undefined) {
      m = this.opts.newManager(
        new PasswordSource(
          { clientId, username: s.username ?? '', password: s.password ?? '' },
          this.opts.endpoint,
          this.opts.guard,
        ),
      );
      this.managers.set(clientId, m);
    }
    return m;
  }
}

/** The merchant credentials were never read: the platform could not be reached (transient, a network failure before anything was sent). */
function notReadYet(why: string | undefined): PlatformError {
  return new PlatformError(
    `the merchant credentials have not been read yet: ${why ?? 'the platform has not been reached'}`,
    {
      category: 'network',
      operation: 'merchants-credentials',
      method: 'GET',
      outcomeUnknown: false,
    },
  );
}

/** `wanted` may be a merchant whose platform id is not learnt yet: as transient as the failure that kept it unknown. */
function cannotCheck(wanted: string, err: PlatformError): PlatformError {
  return new PlatformError(`merchant ${wanted} cannot be checked now: ${describeError(err)}`, {
    category: err.category,
    operation: err.operation,
    method: err.method,
    outcomeUnknown: false,
    ...(err.status !== undefined ? { status: err.status } : {}),
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    cause: err,
  });
}
