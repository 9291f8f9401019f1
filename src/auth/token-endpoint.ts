import { ErrorCodes, systemClock, type ErrorCode, type TimeSource } from '../core/index.js';
import {
  PlatformError,
  httpRequest,
  jsonBody,
  statusError,
  type HttpResponse,
  dispatcherFor,
  type DispatcherSource,
  readResponse,
} from '../platform/index.js';
import { tokenResponseSchema, type GrantOutcome } from './token-response.js';

export interface TokenEndpointOptions {
  /** Security host (docs/platform-contract.md, "Hosts and TLS"). */
  authUrl: string;
  /** Device auth host with its mTLS port (docs/platform-contract.md, "Hosts and TLS"). */
  deviceAuthUrl: string;
  dispatchers: DispatcherSource;
  clock?: TimeSource;
}

/** The end-user (password) device token asks for these scopes (docs/platform-contract.md, "Tokens"). */
export const PASSWORD_SCOPE = 'openid profile email';

export interface CustomTokenDevice {
  deviceModel: string;
  deviceId: string;
  method: 'api' | 'device_flow';
}

/**
 * A refused token request (RFC 6749 5.2) in the agent's codes. The client is refused
 * (AUTH_INVALID_CLIENT, which makes the agent read the merchant credentials again) on
 * `invalid_client`, on `unauthorized_client` and on any 401: identity servers answer a
 * renewed secret with 401 `unauthorized_client` (docs/platform-contract.md, "Tokens").
 */
function oauthCode(errorCode: string | undefined, status: number): ErrorCode | undefined {
  if (errorCode === 'invalid_grant') return ErrorCodes.AUTH_INVALID_GRANT;
  if (errorCode === 'access_denied' || status === 403) return ErrorCodes.AUTH_UNKNOWN_TERMINAL;
  if (errorCode === 'invalid_client' || errorCode === 'unauthorized_client' || status === 401)
    return ErrorCodes.AUTH_INVALID_CLIENT;
  return undefined;
}

/**
 * The token calls of the authorization server: client_credentials and password at the
 * device token endpoint over mutual TLS, refresh_token at the security host's token
 * endpoint of the user domain, the demo custom-token endpoint and the realm token URL
 * (docs/platform-contract.md, "Tokens").
 * Bodies are form-urlencoded; client credentials go in the body.
 * Nothing here logs; errors never carry the secrets or tokens sent.
 */
export class TokenEndpoint {
  private readonly clock: TimeSource;

  constructor(private readonly opts: TokenEndpointOptions) {
    this.clock = opts.clock ?? systemClock();
  }

  clientCredentials(clientId: string, clientSecret: string): Promise<GrantOutcome> {
    return this.post('client_credentials', this.deviceTokenUrl(), {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
  }

  /** End-user grant for a staff log-in; `clientId` is the platform's designated application. */
  password(
    clientId: string,
    username: string,
    password: string,
    clientSecret?: string,
    scope: string = PASSWORD_SCOPE,
  ): Promise<GrantOutcome> {
    return this.post('password', this.deviceTokenUrl(), {
      grant_type: 'password',
      username,
      password,
      client_id: clientId,
      ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}),
      scope,
    });
  }

  /**
   * The device token endpoint takes client_credentials and password only; a refresh
   * belongs to the security host's token endpoint of the client's user domain
   * (docs/platform-contract.md, "Tokens"). No `scope`: the original one.
   */
  refresh(
    userDomain: string,
    clientId: string,
    clientSecret: string | undefined,
    refreshToken: string,
  ): Promise<GrantOutcome> {
    return this.post('refresh_token', this.userDomainTokenUrl(userDomain), {
      grant_type: 'refresh_token',
      client_id: clientId,
      ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}),
      refresh_token: refreshToken,
    });
  }

  /** Demo only: a device token in exchange for a merchant token (docs/platform-contract.md, "Tokens"). */
  customToken(realm: string, merchantToken: string, device: CustomTokenDevice): Promise<GrantOutcome> {
    const url = `${trim(this.opts.authUrl)}/auth/realms/${encodeURIComponent(realm)}/custom-token`;
    return this.post(
      'custom_token',
      url,
      { device_model: device.deviceModel, device_id: device.deviceId, method: device.method },
      merchantToken,
    );
  }

  /** A realm's token URL, e.g. for the merchant token the custom-token flow needs (docs/platform-contract.md, "Tokens"). */
  realmClientCredentials(realm: string, clientId: string, clientSecret: string): Promise<GrantOutcome> {
    return this.post('client_credentials', this.realmTokenUrl(realm), {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
  }

  /**
   * The authorization code of the realm's sign-in exchanged for the merchant token (spec
   * endpoint 2's authorization_code form: client_id, client_secret when the client has one,
   * code, redirect_uri exactly as in the authorization request; docs/platform-contract.md, "Tokens").
   */
  authorizationCode(
    realm: string,
    clientId: string,
    clientSecret: string | undefined,
    code: string,
    redirectUri: string,
  ): Promise<GrantOutcome> {
    return this.post('authorization_code', this.realmTokenUrl(realm), {
      grant_type: 'authorization_code',
      client_id: clientId,
      ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}),
      code,
      redirect_uri: redirectUri,
    });
  }

  /** The merchant token renewed at the realm's token URL, by the client it was issued to; no `scope` (the original one). */
  realmRefresh(
    realm: string,
    clientId: string,
    clientSecret: string | undefined,
    refreshToken: string,
  ): Promise<GrantOutcome> {
    return this.post('refresh_token', this.realmTokenUrl(realm), {
      grant_type: 'refresh_token',
      client_id: clientId,
      ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}),
      refresh_token: refreshToken,
    });
  }

  /** The realm's authorization URL, where the merchant signs in in the browser (spec endpoint 6). */
  realmAuthorizationUrl(realm: string): string {
    return `${trim(this.opts.authUrl)}/auth/realms/${encodeURIComponent(realm)}/protocol/openid-connect/auth`;
  }

  private realmTokenUrl(realm: string): string {
    return `${trim(this.opts.authUrl)}/auth/realms/${encodeURIComponent(realm)}/protocol/openid-connect/token`;
  }

  private userDomainTokenUrl(userDomain: string): string {
    return `${trim(this.opts.authUrl)}/oauth2/v1/${encodeURIComponent(userDomain)}/token`;
  }

  private deviceTokenUrl(): string {
    return `${trim(this.opts.deviceAuthUrl)}/oauth2-mtls/v1/token`;
  }

  private async post(grant: string, url: string, form: Record<string, string>, bearer?: string): Promise<GrantOutcome> {
    const req = { operation: `token (${grant})`, method: 'POST' as const, url };
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
    let res: HttpResponse;
    try {
      res = await httpRequest(
        {
          ...req,
          dispatcher: dispatcherFor(this.opts.dispatchers, url),
          headers,
          body: new URLSearchParams(form).toString(),
        },
        this.clock,
      );
    } catch (err) {
      throw withCertificateHint(err);
    }
    if (res.status < 200 || res.status > 299) throw oauthError(req, res, this.clock);
    // A token answer that cannot be read is not an unknown payment outcome: a token is simply not held.
    const response = readResponse(
      tokenResponseSchema,
      jsonBody({ ...req, method: 'GET' }, res),
      { ...req, method: 'GET' },
      res.status,
    );
    return { response, timing: { dateMs: res.dateMs, receivedAtMs: res.receivedAtMs, receivedMono: res.receivedMono } };
  }
}

function oauthError(req: { operation: string; method: 'POST' }, res: HttpResponse, clock: TimeSource): PlatformError {
  const base = statusError(req, res, clock);
  // A 5xx or a 429 stays what it is (retried), whatever its body says.
  const code = res.status >= 500 || res.status === 429 ? undefined : oauthCode(base.errorCode, res.status);
  if (code === undefined) return base;
  return new PlatformError(base.message, {
    category: base.category === 'server' ? 'server' : res.status === 401 || res.status === 403 ? 'auth' : 'rejected',
    code,
    operation: base.operation,
    method: base.method,
    status: res.status,
    ...(base.errorCode !== undefined ? { errorCode: base.errorCode } : {}),
    ...(base.errorMessage !== undefined ? { errorMessage: base.errorMessage } : {}),
    // A refused token request changed nothing at the platform.
    outcomeUnknown: false,
  });
}

/**
 * Over TLS 1.3 a platform that refuses the client certificate closes the connection
 * right after the handshake, without an alert: say so, since it looks like a network fault.
 */
function withCertificateHint(err: unknown): unknown {
  if (!(err instanceof PlatformError) || err.transportCode !== 'UND_ERR_SOCKET') return err;
  return new PlatformError(
    `${err.message}; if this persists, the platform may be refusing the device certificate (check \`terminal-agent certs show\`)`,
    {
      category: err.category,
      operation: err.operation,
      method: err.method,
      outcomeUnknown: err.outcomeUnknown,
      transportCode: err.transportCode,
      cause: err.cause,
    },
  );
}

function trim(url: string): string {
  return url.replace(/\/+$/, '');
}
