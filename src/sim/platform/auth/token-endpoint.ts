import { randomUUID } from 'node:crypto';
import { verifyJwtSignature } from '../jwt.js';
import { SimHttpError, type SimRequest, type SimResponse } from '../router.js';
import { authenticateClient } from './client-auth.js';
import { assertDomain, sameSecret, terminalOfCert, type AuthCore } from './core.js';
import { required, tokenForm } from './form.js';
import { EXTERNAL_MACHINE, PUBLIC_DEVICE, type DeviceAuth, type Grant, type GrantType } from './grant.js';
import { oauthError } from './oauth-error.js';
import { parseScope, withScopes } from './scope.js';
import { issuerUrl, signingKey, type TokenResponse } from './token-issuer.js';
import type { SeedTerminal } from '../seed.js';

/** oauth: the token calls of the security host and its realms; mtls: the device token call (device auth host, port 9021; docs/platform-contract.md, "Hosts and TLS"). */
export type TokenEndpointKind = 'oauth' | 'mtls';

type TokenGrantType = Exclude<GrantType, 'custom_token'>;

const GRANTS: Record<TokenEndpointKind, readonly TokenGrantType[]> = {
  // The password grant belongs to the mutual TLS endpoint (docs/platform-contract.md, "Tokens").
  oauth: ['authorization_code', 'refresh_token', 'client_credentials'],
  // The device token call: client_credentials and password; the standard profile also
  // refreshes there, as the platform may (docs/platform-contract.md, "Tokens").
  mtls: ['client_credentials', 'password', 'refresh_token'],
};

/** Strict: the device token call takes only the two grants the contract names for it; refresh_token belongs to the security host. */
const STRICT_MTLS: readonly TokenGrantType[] = ['client_credentials', 'password'];

const KNOWN: readonly string[] = ['authorization_code', 'refresh_token', 'client_credentials', 'password'];

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

interface Issued {
  body: TokenResponse;
  clientId: string;
}

type GrantHandler = (core: AuthCore, req: SimRequest, form: Map<string, string>, kind: TokenEndpointKind) => Issued;

export function tokenEndpoint(core: AuthCore, kind: TokenEndpointKind) {
  return (req: SimRequest): SimResponse => {
    if (kind === 'oauth') assertDomain(core, req.params.userDomain ?? req.params.realm);
    const form = tokenForm(req);
    const name = required(form, 'grant_type');
    const allowed = kind === 'mtls' && core.ctx.profile.strict ? STRICT_MTLS : GRANTS[kind];
    const type = allowed.find((g) => g === name);
    if (type === undefined) {
      // A grant type the platform knows, asked at the wrong endpoint, counts as refused there.
      if (KNOWN.includes(name)) core.stats.count(name as TokenGrantType, false, kind);
      core.log.info(
        { endpoint: kind, grantType: KNOWN.includes(name) ? name : undefined },
        'token request refused: unsupported grant type',
      );
      throw oauthError(
        'unsupported_grant_type',
        `grant_type ${JSON.stringify(name.slice(0, 40))} is not supported here`,
      );
    }
    try {
      const { body, clientId } = HANDLERS[type](core, req, form, kind);
      core.stats.count(type, true, kind);
      core.log.info({ endpoint: kind, grantType: type, clientId }, 'token issued');
      return { status: 200, headers: NO_STORE, body };
    } catch (err) {
      core.stats.count(type, false, kind);
      if (err instanceof SimHttpError)
        core.log.info({ endpoint: kind, grantType: type, error: err.errorCode }, 'token request refused');
      throw err;
    }
  };
}

/**
 * The scope of a device token. Standard: what was asked plus `auth`, so the token carries
 * the device claims and `cnf`. Strict: what was asked only; the agent never asks for
 * `auth`, so its tokens carry no `cnf` (docs/demo-platform.md, "Demo platform").
 */
function deviceScope(core: AuthCore, requested: readonly string[]): string[] {
  return core.ctx.profile.strict ? [...requested] : withScopes(requested, ['auth']);
}

/** `cnf` is a claim of the `auth` scope: the thumbprint of the certificate the token was asked with, when that scope is granted. */
function deviceBinding(scope: readonly string[], req: SimRequest): string | undefined {
  return scope.includes('auth') ? req.clientThumbprint : undefined;
}

function terminalDevice(terminal: SeedTerminal): DeviceAuth {
  // Confidential device over mutual TLS (the `auth` scope's claims by device class).
  return {
    deviceType: terminal.deviceType,
    deviceId: terminal.logicalDeviceId,
    method: 'api',
    twoFa: 'tls',
    physicalDeviceId: terminal.serialNumber,
  };
}

const authorizationCode: GrantHandler = (core, req, form) => {
  const client = authenticateClient(req, form, core.clients, core.ctx.profile.strict);
  const code = required(form, 'code');
  const redirectUri = required(form, 'redirect_uri');
  const now = core.ctx.now();
  const taken = core.codes.take(code, now);
  if (!taken.ok) {
    // RFC 6749 4.1.2: a replayed code revokes what was issued for it (refresh tokens here;
    // access tokens are self-contained and run out by themselves).
    if (taken.replayedSession !== undefined) core.refresh.revokeSession(taken.replayedSession);
    throw oauthError('invalid_grant', taken.reason);
  }
  const entry = taken.entry;
  if (entry.clientId !== client.clientId)
    throw oauthError('invalid_grant', 'authorization code was issued to another client');
  // RFC 6749 4.1.3: must be identical to the redirect_uri of the authorization request.
  if (entry.redirectUri !== redirectUri)
    throw oauthError('invalid_grant', 'redirect_uri differs from the authorization request');
  const grant: Grant = {
    clientId: client.clientId,
    subject: entry.subject,
    scope: entry.scope,
    device: PUBLIC_DEVICE,
    cnf: undefined,
    idToken: false,
    sessionId: entry.sessionId,
    reportSession: false,
    authTime: Math.floor(entry.authTime / 1000),
  };
  return { body: core.issuer.issue(grant, grant.scope), clientId: client.clientId };
};

const refreshToken: GrantHandler = (core, req, form) => {
  const client = authenticateClient(req, form, core.clients, core.ctx.profile.strict);
  const token = required(form, 'refresh_token');
  const checked = verifyJwtSignature(token, signingKey(core.ctx));
  if (
    !checked.ok ||
    checked.claims.typ !== 'Refresh' ||
    checked.claims.iss !== issuerUrl(core.ctx) ||
    typeof checked.claims.jti !== 'string'
  ) {
    throw oauthError('invalid_grant', 'not a refresh token of this platform');
  }
  const jti = checked.claims.jti;
  const now = core.ctx.now();
  const peek = core.refresh.peek(jti, now);
  if (!peek.ok) throw oauthError('invalid_grant', peek.reason);
  const grant = peek.grant;
  if (grant.clientId !== client.clientId)
    throw oauthError('invalid_grant', 'refresh token was issued to another client');
  // RFC 8705 4: a certificate-bound grant is refreshed with the same certificate.
  if (grant.cnf !== undefined && req.clientThumbprint !== grant.cnf) {
    throw oauthError('invalid_grant', 'refresh token is bound to another client certificate');
  }
  const scope = parseScope(form.get('scope'), grant.scope);
  const wider = scope.filter((s) => !grant.scope.includes(s));
  if (wider.length > 0) throw oauthError('invalid_scope', `scope ${wider.join(' ')} was not granted originally`);
  // Checks and consumption in one synchronous step: of concurrent refreshes only one wins.
  const taken = core.refresh.take(jti, now);
  if (!taken.ok) throw oauthError('invalid_grant', taken.reason);
  return { body: core.issuer.issue(grant, scope), clientId: client.clientId };
};

const clientCredentials: GrantHandler = (core, req, form, kind) => {
  const client = authenticateClient(req, form, core.clients, core.ctx.profile.strict);
  if (!client.confidential) throw oauthError('unauthorized_client', 'a public client cannot use client_credentials');
  const requested = parseScope(form.get('scope'), ['profile', 'email']);
  const subject = core.subjects.serviceAccount(client.clientId, client.merchantId);
  const base = {
    clientId: client.clientId,
    subject,
    sessionId: randomUUID(),
    reportSession: false,
    authTime: Math.floor(core.ctx.now() / 1000),
  };
  if (kind === 'oauth') {
    const grant: Grant = { ...base, scope: requested, device: EXTERNAL_MACHINE, cnf: undefined, idToken: false };
    // Strict: no refresh token for a machine-to-machine client (RFC 6749 4.4.3); it grants again.
    return { body: core.issuer.issue(grant, requested, { refreshToken: false }), clientId: client.clientId };
  }
  const terminal = terminalOfCert(core, req);
  // Machine to machine: the merchant credentials registered for this terminal (docs/platform-contract.md, "Tokens").
  if (
    client.kind !== 'merchant' ||
    client.merchantId === undefined ||
    !terminal.merchantIds.includes(client.merchantId)
  ) {
    throw oauthError('invalid_client', 'client is not registered for this terminal');
  }
  const scope = deviceScope(core, requested);
  const grant: Grant = {
    ...base,
    scope,
    device: terminalDevice(terminal),
    cnf: deviceBinding(scope, req),
    idToken: true,
  };
  return { body: core.issuer.issue(grant, scope), clientId: client.clientId };
};

const password: GrantHandler = (core, req, form) => {
  const client = authenticateClient(req, form, core.clients, core.ctx.profile.strict);
  // The password grant's client is the platform's designated powered application (docs/platform-contract.md, "Tokens").
  if (!client.powered)
    throw oauthError('unauthorized_client', 'the password grant is reserved for the powered application');
  const terminal = terminalOfCert(core, req);
  const username = required(form, 'username');
  const pass = required(form, 'password');
  const user = core.ctx.seed.users.find((u) => u.username === username);
  if (user === undefined || !sameSecret(user.password, pass))
    throw oauthError('invalid_grant', 'invalid user credentials');
  if (!terminal.merchantIds.includes(user.merchantId))
    throw oauthError('invalid_grant', 'the user does not work for a merchant of this terminal');
  const scope = deviceScope(core, parseScope(form.get('scope'), ['openid', 'profile', 'email']));
  const now = Math.floor(core.ctx.now() / 1000);
  const grant: Grant = {
    clientId: client.clientId,
    subject: core.subjects.user(user),
    scope,
    device: terminalDevice(terminal),
    cnf: deviceBinding(scope, req),
    idToken: true,
    sessionId: randomUUID(),
    reportSession: true,
    authTime: now,
  };
  return { body: core.issuer.issue(grant, scope), clientId: client.clientId };
};

const HANDLERS: Record<TokenGrantType, GrantHandler> = {
  authorization_code: authorizationCode,
  refresh_token: refreshToken,
  client_credentials: clientCredentials,
  password,
};
