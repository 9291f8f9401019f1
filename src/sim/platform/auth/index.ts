import { SimHttpError, type SimRouter } from '../router.js';
import type { SimContext, TokenVerifier } from '../context.js';
import { authorizeEndpoint } from './authorize-endpoint.js';
import { createAuthCore } from './core.js';
import { credentialsEndpoint } from './credentials-endpoint.js';
import { customTokenEndpoint } from './custom-token-endpoint.js';
import type { AuthStats } from './grant-stats.js';
import { tokenEndpoint } from './token-endpoint.js';

export type { AuthStats, GrantCounts } from './grant-stats.js';
export type { TokenResponse } from './token-issuer.js';
export type { MerchantCredentials } from './credentials-endpoint.js';

/** The demo authorization server (docs/demo-platform.md, "Demo platform"; the token calls in docs/platform-contract.md, "Tokens"). */
export interface SimAuthServer {
  verifier: TokenVerifier;
  /** Issues a new client secret; the old one fails from now on, issued tokens stay valid. */
  renewSecret(clientId: string): string;
  /** Tokens issued and refused, by grant type. */
  stats(): AuthStats;
  /** Every refresh token issued so far becomes invalid (invalid_grant); answers how many were live. */
  revokeRefreshTokens(): number;
  registerControl(router: SimRouter): void;
}

/**
 * Routes (fault-injection names in brackets):
 * - api listener: POST /oauth2/v1/:userDomain/token [oauth-token], GET|POST
 *   /oauth2/v1/:userDomain/auth [oauth-auth], GET /oauth2-mtls/v1/merchants-credentials
 *   [merchants-credentials], POST /auth/realms/:realm/custom-token [custom-token],
 *   GET|POST /auth/realms/:realm/protocol/openid-connect/auth [realm-auth] and POST .../token [realm-token];
 * - mtls listener: POST /oauth2-mtls/v1/token [mtls-token], GET
 *   /oauth2-mtls/v1/merchants-credentials [merchants-credentials].
 */
export function createAuthServer(router: SimRouter, ctx: SimContext): SimAuthServer {
  const core = createAuthCore(ctx);
  const authorize = authorizeEndpoint(core);
  const credentials = credentialsEndpoint(core);

  router.add('POST', '/oauth2/v1/:userDomain/token', 'oauth-token', tokenEndpoint(core, 'oauth'));
  router.add('GET', '/oauth2/v1/:userDomain/auth', 'oauth-auth', authorize);
  router.add('POST', '/oauth2/v1/:userDomain/auth', 'oauth-auth', authorize);
  router.add('GET', '/oauth2-mtls/v1/merchants-credentials', 'merchants-credentials', credentials, ['api', 'mtls']);
  router.add('POST', '/oauth2-mtls/v1/token', 'mtls-token', tokenEndpoint(core, 'mtls'), ['mtls']);
  router.add('POST', '/auth/realms/:realm/custom-token', 'custom-token', customTokenEndpoint(core));
  router.add('GET', '/auth/realms/:realm/protocol/openid-connect/auth', 'realm-auth', authorize);
  router.add('POST', '/auth/realms/:realm/protocol/openid-connect/auth', 'realm-auth', authorize);
  router.add('POST', '/auth/realms/:realm/protocol/openid-connect/token', 'realm-token', tokenEndpoint(core, 'oauth'));

  const renewSecret = (clientId: string): string => {
    const secret = core.clients.renew(clientId);
    if (secret === undefined) throw new SimHttpError(404, 'NOT_FOUND', 'no confidential client with this id');
    core.log.info({ clientId }, 'client secret renewed');
    return secret;
  };
  const revokeRefreshTokens = (): number => {
    const revoked = core.refresh.revokeAll(ctx.now());
    core.log.info({ revoked }, 'refresh tokens revoked');
    return revoked;
  };

  return {
    verifier: core.verifier,
    renewSecret,
    stats: () => core.stats.snapshot(),
    revokeRefreshTokens,
    registerControl(r: SimRouter) {
      r.add('POST', '/sim/control/clients/:clientId/renew-secret', 'control', (req) => ({
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: { clientSecret: renewSecret(req.params.clientId as string) },
      }));
      r.add('GET', '/sim/control/auth/stats', 'control', () => ({ status: 200, body: core.stats.snapshot() }));
      r.add('POST', '/sim/control/auth/revoke-refresh-tokens', 'control', () => ({
        status: 200,
        body: { revoked: revokeRefreshTokens() },
      }));
    },
  };
}
