import type { AccessTokenInfo } from './jwt.js';
import type { MerchantCredentials } from './merchant-credentials.js';
import type { CustomTokenDevice, TokenEndpoint } from './token-endpoint.js';
import type { GrantOutcome } from './token-response.js';
import type { TokenSource } from './token-manager.js';

/** A merchant's current credentials; replaced in place when they are read again. */
export interface MerchantSlot {
  credentials: MerchantCredentials;
}

/**
 * Machine-to-machine: client_credentials at the device token endpoint; refreshed at the
 * security host's token endpoint of the merchant's user domain (docs/platform-contract.md, "Tokens").
 */
export class ClientCredentialsSource implements TokenSource {
  readonly flow = 'client_credentials' as const;

  constructor(
    private readonly slot: MerchantSlot,
    private readonly endpoint: TokenEndpoint,
    private readonly reload: () => Promise<void>,
    /** Throws when a request must not go out (e.g. our certificate expired). */
    private readonly guard: () => void = () => {},
  ) {}

  clientId(): string {
    return this.slot.credentials.clientId;
  }

  async grant(): Promise<GrantOutcome> {
    this.guard();
    return this.endpoint.clientCredentials(this.slot.credentials.clientId, this.slot.credentials.clientSecret);
  }

  refresh(refreshToken: string, token: AccessTokenInfo): Promise<GrantOutcome> | undefined {
    const domain = userDomainOf(this.slot.credentials.userDomain, token);
    if (domain === undefined) return undefined;
    this.guard();
    return this.endpoint.refresh(
      domain,
      this.slot.credentials.clientId,
      this.slot.credentials.clientSecret,
      refreshToken,
    );
  }

  reloadCredentials(): Promise<void> {
    return this.reload();
  }
}

export interface PasswordLogin {
  /** The platform's designated application (docs/platform-contract.md, "Tokens", password grant). */
  clientId: string;
  clientSecret?: string;
  username: string;
  password: string;
}

/**
 * End-user: password grant with scope openid profile email at the device token endpoint;
 * refreshed at the security host's token endpoint of the user's domain, the token's
 * `user_domain` claim (docs/platform-contract.md, "Tokens").
 */
export class PasswordSource implements TokenSource {
  readonly flow = 'password' as const;

  constructor(
    private readonly login: PasswordLogin,
    private readonly endpoint: TokenEndpoint,
    private readonly guard: () => void = () => {},
  ) {}

  clientId(): string {
    return this.login.clientId;
  }

  async grant(): Promise<GrantOutcome> {
    this.guard();
    return this.endpoint.password(
      this.login.clientId,
      this.login.username,
      this.login.password,
      this.login.clientSecret,
    );
  }

  refresh(refreshToken: string, token: AccessTokenInfo): Promise<GrantOutcome> | undefined {
    const domain = userDomainOf(undefined, token);
    if (domain === undefined) return undefined;
    this.guard();
    return this.endpoint.refresh(domain, this.login.clientId, this.login.clientSecret, refreshToken);
  }
}

export interface CustomTokenOptions {
  realm: string;
  /** The client the merchant token was issued to: the device token carries it as azp. */
  clientId: string;
  /** A merchant token from the realm's authorization flow. */
  merchantToken: () => Promise<string>;
  device: CustomTokenDevice;
}

/** Demo only: a device token from the custom-token endpoint (docs/platform-contract.md, "Tokens"); renewed by asking again. */
export class CustomTokenSource implements TokenSource {
  readonly flow = 'custom_token' as const;

  constructor(
    private readonly opts: CustomTokenOptions,
    private readonly endpoint: TokenEndpoint,
  ) {}

  clientId(): string {
    return this.opts.clientId;
  }

  async grant(): Promise<GrantOutcome> {
    return this.endpoint.customToken(this.opts.realm, await this.opts.merchantToken(), this.opts.device);
  }
}

/**
 * The user domain whose token endpoint refreshes: the merchant credentials' `userDomain`,
 * else the token's `user_domain` claim (profile scope). Neither known: no refresh, a new
 * grant instead (docs/platform-contract.md, "Tokens").
 */
function userDomainOf(fromCredentials: string | undefined, token: AccessTokenInfo): string | undefined {
  if (fromCredentials !== undefined && fromCredentials !== '') return fromCredentials;
  return token.userDomain !== undefined && token.userDomain !== '' ? token.userDomain : undefined;
}
