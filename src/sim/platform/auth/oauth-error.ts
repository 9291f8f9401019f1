import { SimHttpError } from '../router.js';

/** Error codes of RFC 6749 section 5.2 the demo platform answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied';

/**
 * An OAuth error response: 400 with `{error, error_description}` (RFC 6749 5.2), except
 * invalid_client, which is 401 with a WWW-Authenticate challenge. Descriptions never
 * carry the secret, password or token that failed.
 */
export function oauthError(error: OAuthErrorCode, description: string, status?: number): SimHttpError {
  const code = status ?? (error === 'invalid_client' ? 401 : error === 'access_denied' ? 403 : 400);
  const headers: Record<string, string> = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (code === 401) headers['www-authenticate'] = 'Basic realm="demo-platform", charset="UTF-8"';
  return new SimHttpError(code, error, description, headers, { error, error_description: description });
}

/** The domain or realm in the path is not one the platform hosts. */
export function unknownDomain(name: string): SimHttpError {
  return new SimHttpError(404, 'NOT_FOUND', `unknown user domain or realm ${JSON.stringify(name)}`);
}
