import { randomUUID } from 'node:crypto';
import type { SimRequest, SimResponse } from '../router.js';
import { assertDomain, sameSecret, type AuthCore } from './core.js';
import { uniqueParams } from './form.js';
import { loginPage } from './login-page.js';
import { oauthError } from './oauth-error.js';
import { parseScope } from './scope.js';
import { redirectUriRegistered } from './redirect-uri.js';

/**
 * The page posts to itself only; nothing else runs on it. form-action also covers the
 * redirect that answers the post, so the client's redirect URI's origin is allowed too.
 */
function htmlHeaders(redirectUri: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; form-action 'self' ${new URL(redirectUri).origin}`,
    'x-frame-options': 'DENY',
  };
}

/** Query parameters, overridden by the form body of a POST. */
function requestParams(req: SimRequest): Map<string, string> {
  const params = uniqueParams(req.query);
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (req.method === 'POST' && type.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of uniqueParams(new URLSearchParams(req.rawBody))) params.set(k, v);
  }
  return params;
}

function redirect(uri: string, params: Record<string, string | undefined>): SimResponse {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return { status: 302, headers: { location: url.toString(), 'cache-control': 'no-store' } };
}

/**
 * The authorization endpoint (and the realm's openid-connect auth URL): the authorization code
 * flow. Until client and redirect_uri are known good every failure is a 400 here, never a
 * redirect; after that, failure and denial redirect with error=<HTTP code> and state
 * (as the platform does).
 */
export function authorizeEndpoint(core: AuthCore) {
  return (req: SimRequest): SimResponse => {
    assertDomain(core, req.params.userDomain ?? req.params.realm);
    const params = requestParams(req);
    const clientId = params.get('client_id');
    const redirectUri = params.get('redirect_uri');
    const client = clientId === undefined ? undefined : core.clients.get(clientId);
    if (client === undefined) throw oauthError('invalid_request', 'missing or unknown client_id');
    if (redirectUri === undefined || !redirectUriRegistered(client.redirectUris, redirectUri)) {
      throw oauthError('invalid_request', 'redirect_uri is not registered for this client');
    }
    const state = params.get('state');
    const fail = (status: number, reason: string): SimResponse => {
      core.log.info({ clientId: client.clientId, status, reason }, 'authorization request refused');
      return redirect(redirectUri, { error: String(status), state });
    };

    if (params.get('response_type') !== 'code') return fail(400, 'response_type must be code');
    let scope: string[];
    try {
      // The platform's default scope: profile email.
      scope = parseScope(params.get('scope'), ['profile', 'email']);
    } catch {
      return fail(400, 'invalid scope');
    }
    const secret = params.get('client_secret');
    if (secret !== undefined && !core.clients.secretMatches(client.clientId, secret))
      return fail(401, 'wrong client secret');
    if (params.get('action') === 'deny') return fail(403, 'the resource owner denied the request');

    const username = params.get('username');
    const password = params.get('password');
    if (username === undefined && password === undefined) {
      return { status: 200, headers: htmlHeaders(redirectUri), text: loginPage(req.path, params) };
    }
    const user = core.ctx.seed.users.find((u) => u.username === username);
    if (user === undefined || password === undefined || !sameSecret(user.password, password))
      return fail(401, 'invalid user credentials');

    const now = core.ctx.now();
    const code = core.codes.create(
      {
        clientId: client.clientId,
        redirectUri,
        scope,
        subject: core.subjects.user(user),
        sessionId: randomUUID(),
        authTime: now,
      },
      now,
    );
    core.log.info({ clientId: client.clientId }, 'authorization code issued');
    return redirect(redirectUri, { code, state });
  };
}
