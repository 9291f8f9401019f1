import type { SimRequest } from '../router.js';
import { oauthError } from './oauth-error.js';

/**
 * The form parameters of a token request (application/x-www-form-urlencoded: docs/platform-contract.md, "Tokens").
 * A parameter sent twice is invalid_request (RFC 6749 3.2).
 */
export function tokenForm(req: SimRequest): Map<string, string> {
  const type = String(req.headers['content-type'] ?? '');
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw oauthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  return uniqueParams(new URLSearchParams(req.rawBody));
}

export function uniqueParams(params: URLSearchParams): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of params) {
    if (out.has(k)) throw oauthError('invalid_request', `parameter ${k} is repeated`);
    out.set(k, v);
  }
  return out;
}

/** A required parameter: missing or empty is invalid_request. */
export function required(form: Map<string, string>, name: string): string {
  const v = form.get(name);
  if (v === undefined || v === '') throw oauthError('invalid_request', `missing parameter ${name}`);
  return v;
}
