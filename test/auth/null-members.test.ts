import { describe, expect, it } from 'vitest';
import { checkAccessToken, decodeJwtPayload } from '../../src/auth/jwt.js';
import { staffIdentityOf } from '../../src/auth/staff-claims.js';
import { tokenResponseSchema } from '../../src/auth/token-response.js';
import { ErrorCodes } from '../../src/core/index.js';
import { errorOf } from '../helpers/agent-error.js';
import { jwt } from './fake-tokens.js';

// `null` in an optional member of a token answer or of a token's claims reads as absent
// (docs/platform-contract.md, "Tolerance of answers", tokens): a platform that writes every
// member it does not fill as null still gives the terminal its token.

const NOW = Date.parse('2030-01-01T00:00:00Z');
const nowS = NOW / 1000;
const ours = { clientId: 'terminal-app-1001', thumbprint: 'T', leewaySeconds: 30, platformNowMs: NOW };
const registered = {
  iat: nowS,
  nbf: nowS,
  exp: nowS + 300,
  azp: 'terminal-app-1001',
  aud: ['terminal-app-1001'],
  sub: 's',
  jti: 'j',
  iss: 'https://idp/realms/demo',
};

describe('token answer', () => {
  it('null id_token, not-before-policy, session_state, refresh_expires_in, refresh_token, scope and token_type read as absent', () => {
    const parsed = tokenResponseSchema.parse({
      access_token: 'a.b.c',
      expires_in: 300,
      refresh_expires_in: null,
      refresh_token: null,
      id_token: null,
      token_type: null,
      'not-before-policy': null,
      session_state: null,
      scope: null,
    });
    expect(parsed.access_token).toBe('a.b.c');
    for (const key of [
      'refresh_expires_in',
      'refresh_token',
      'id_token',
      'token_type',
      'not-before-policy',
      'session_state',
      'scope',
    ] as const) {
      expect(parsed[key]).toBeUndefined();
    }
  });

  it('the essentials stay required: a null access_token or expires_in is refused, and a member of the wrong type still is', () => {
    expect(tokenResponseSchema.safeParse({ access_token: null, expires_in: 300 }).success).toBe(false);
    expect(tokenResponseSchema.safeParse({ access_token: 'a.b.c', expires_in: null }).success).toBe(false);
    expect(tokenResponseSchema.safeParse({ access_token: 'a.b.c', expires_in: 300, session_state: 42 }).success).toBe(
      false,
    );
  });
});

describe('access token claims', () => {
  it('null optional claims (scope, entityId, user_domain, preferred_username, device_id, cnf) read as absent', () => {
    const token = jwt({
      ...registered,
      scope: null,
      entityId: null,
      user_domain: null,
      preferred_username: null,
      device_id: null,
      cnf: null,
    });
    const info = checkAccessToken(token, ours);
    expect(info).toMatchObject({
      clientId: 'terminal-app-1001',
      merchantId: undefined,
      userDomain: undefined,
      username: undefined,
      scopes: [],
      boundThumbprint: undefined,
    });
  });

  it('a null thumbprint inside cnf is no binding; a thumbprint that is not ours is still refused', () => {
    expect(checkAccessToken(jwt({ ...registered, cnf: { 'x5t#S256': null } }), ours).boundThumbprint).toBeUndefined();
    expect(errorOf(() => checkAccessToken(jwt({ ...registered, cnf: { 'x5t#S256': 'other' } }), ours)).code).toBe(
      ErrorCodes.AUTH_BINDING_MISMATCH,
    );
  });

  it('the registered claims the contract promises stay as they are: a null exp, nbf, iat or azp is refused', () => {
    for (const claim of ['exp', 'nbf', 'iat', 'azp', 'sub', 'iss']) {
      expect(errorOf(() => decodeJwtPayload(jwt({ ...registered, [claim]: null }))).message).toMatch(
        new RegExp(`^access token claim ${claim}: `),
      );
    }
  });

  it("a staff token's null profile claims fall back to what was typed", () => {
    const token = jwt({
      ...registered,
      preferred_username: null,
      name: null,
      permissions: null,
      locale: null,
      zoneinfo: null,
      datetimeformat: null,
    });
    expect(staffIdentityOf(token, 'staff1')).toEqual({ username: 'staff1', name: 'staff1', permissions: [] });
  });
});
