import { oauthError } from './oauth-error.js';

/** Scope values the platform knows; each grants its own claims (see claims.ts). */
export const KNOWN_SCOPES = ['openid', 'profile', 'email', 'phone', 'address', 'auth'] as const;

/**
 * Parses a space-separated scope parameter; an unknown value is invalid_scope. Omitted or
 * empty means `fallback`. The result is in a canonical order without duplicates.
 */
export function parseScope(raw: string | undefined, fallback: readonly string[]): string[] {
  if (raw === undefined || raw.trim() === '') return canonical(fallback);
  const values = raw.split(' ').filter((s) => s !== '');
  for (const v of values) {
    if (!(KNOWN_SCOPES as readonly string[]).includes(v))
      throw oauthError('invalid_scope', `unknown scope ${JSON.stringify(v)}`);
  }
  return canonical(values);
}

export function canonical(values: readonly string[]): string[] {
  return KNOWN_SCOPES.filter((s) => values.includes(s));
}

export function withScopes(values: readonly string[], extra: readonly string[]): string[] {
  return canonical([...values, ...extra]);
}
