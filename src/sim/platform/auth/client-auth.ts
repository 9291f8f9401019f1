import type { SimRequest } from '../router.js';
import type { ClientRegistry, OAuthClient } from './clients.js';
import { oauthError } from './oauth-error.js';

interface Presented {
  clientId: string | undefined;
  clientSecret: string | undefined;
}

/** Client credentials from HTTP Basic or the body, never both (RFC 6749 2.3.1). */
function presented(req: SimRequest, form: Map<string, string>): Presented {
  const header = req.headers.authorization;
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (header === undefined) return { clientId: bodyId, clientSecret: bodySecret };
  const m = /^Basic[ ]+([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (m === null) throw oauthError('invalid_client', 'unsupported client authentication scheme');
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError('invalid_client', 'malformed Basic credentials');
  let clientId: string;
  let clientSecret: string;
  try {
    // Both parts are form-urlencoded before they are joined (RFC 6749 2.3.1).
    const decode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
    clientId = decode(decoded.slice(0, colon));
    clientSecret = decode(decoded.slice(colon + 1));
  } catch {
    throw oauthError('invalid_client', 'malformed Basic credentials');
  }
  if (bodySecret !== undefined)
    throw oauthError('invalid_request', 'client credentials sent both in the header and in the body');
  if (bodyId !== undefined && bodyId !== clientId)
    throw oauthError('invalid_request', 'client_id differs from the authenticated client');
  return { clientId, clientSecret };
}

/**
 * Authenticates the client of a token request: a confidential client by its current
 * secret, a public client by its id alone. Any failure is invalid_client (401); strict
 * answers a known client's wrong secret (a renewed one) with 401 unauthorized_client, as
 * identity servers with realm URLs do (docs/demo-platform.md, "Demo platform").
 */
export function authenticateClient(
  req: SimRequest,
  form: Map<string, string>,
  clients: ClientRegistry,
  strict = false,
): OAuthClient {
  const { clientId, clientSecret } = presented(req, form);
  if (clientId === undefined || clientId === '')
    throw oauthError('invalid_client', 'client authentication is required');
  const client = clients.get(clientId);
  if (client === undefined) throw oauthError('invalid_client', 'unknown client or wrong client secret');
  if (client.confidential) {
    if (clientSecret === undefined || !clients.secretMatches(clientId, clientSecret)) {
      if (strict) throw oauthError('unauthorized_client', 'Invalid client or Invalid client credentials', 401);
      throw oauthError('invalid_client', 'unknown client or wrong client secret');
    }
  } else if (clientSecret !== undefined && clientSecret !== '') {
    throw oauthError('invalid_client', 'a public client has no secret');
  }
  return client;
}
