import { describe, expect, it } from 'vitest';
import { checkAccessToken, decodeJwtPayload } from '../../src/auth/jwt.js';
import { ErrorCodes } from '../../src/core/index.js';
import { errorOf } from '../helpers/agent-error.js';
import { jwt } from './fake-tokens.js';

// The access-token checks as the platform's tokens meet them (docs/platform-contract.md,
// "Tokens"). Written to kill the mutants `npm run mutate` found surviving
// (test/README.md, "Mutation testing").

const NOW = Date.parse('2030-01-01T00:00:00Z');
const nowS = NOW / 1000;
const ours = { clientId: 'terminal-app-1001', thumbprint: 'T', leewaySeconds: 30, platformNowMs: NOW };
const good = {
  iat: nowS,
  nbf: nowS,
  exp: nowS + 300,
  azp: 'terminal-app-1001',
  aud: ['terminal-app-1001'],
  cnf: { 'x5t#S256': 'T' },
};
const b64 = (text: string): string => Buffer.from(text).toString('base64url');

describe('what is a JWT', () => {
  it('exactly three parts with a payload: two, four or an empty payload are refused', () => {
    const [h, p, s] = jwt(good).split('.');
    for (const token of [`${h}.${p}`, `${h}.${p}.${s}.${s}`, `${h}..${s}`, '']) {
      const err = errorOf(() => decodeJwtPayload(token));
      expect(err.code).toBe(ErrorCodes.AUTH_TOKEN_INVALID);
      expect(err.message).toBe('access token is not a JWT (expected three dot-separated parts)');
    }
    expect(decodeJwtPayload(`${h}.${p}.${s}`).exp).toBe(nowS + 300);
  });

  it('a payload that is not JSON is refused as such, keeping the cause', () => {
    const err = errorOf(() => decodeJwtPayload(`a.${b64('{not json')}.c`));
    expect(err.code).toBe(ErrorCodes.AUTH_TOKEN_INVALID);
    expect(err.message).toBe('access token payload is not base64url JSON');
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it('a claim of the wrong type is named by its path; a payload that is not an object says so', () => {
    expect(errorOf(() => decodeJwtPayload(jwt({ ...good, cnf: { 'x5t#S256': 5 } }))).message).toMatch(
      /^access token claim cnf\.x5t#S256: /,
    );
    expect(errorOf(() => decodeJwtPayload(jwt({ ...good, exp: undefined }))).message).toMatch(
      /^access token claim exp: /,
    );
    expect(errorOf(() => decodeJwtPayload(`a.${b64('42')}.c`)).message).toMatch(/^access token claim \(payload\): /);
  });
});

describe('when a token is valid', () => {
  it('expiry: the leeway second before exp+leeway is valid, that instant is not, and the message gives both times', () => {
    expect(() => checkAccessToken(jwt({ ...good, exp: nowS - 29.999 }), ours)).not.toThrow();
    const err = errorOf(() => checkAccessToken(jwt({ ...good, exp: nowS - 30 }), ours));
    expect(err.code).toBe(ErrorCodes.AUTH_TOKEN_INVALID);
    expect(err.message).toBe(
      'access token expired on arrival (exp 2029-12-31T23:59:30.000Z, platform time 2030-01-01T00:00:00.000Z)',
    );
  });

  it('not before: valid up to nbf-leeway exactly, and the message gives both times', () => {
    expect(() => checkAccessToken(jwt({ ...good, nbf: nowS + 30 }), ours)).not.toThrow();
    const err = errorOf(() => checkAccessToken(jwt({ ...good, nbf: nowS + 30.5 }), ours));
    expect(err.message).toBe(
      'access token not valid before 2030-01-01T00:00:30.500Z (platform time 2030-01-01T00:00:00.000Z)',
    );
    expect(() => checkAccessToken(jwt({ ...good, nbf: undefined }), ours)).not.toThrow();
  });

  it('a time beyond what a date can show is written as the number it is', () => {
    const err = errorOf(() => checkAccessToken(jwt({ ...good, nbf: 1e20 }), ours));
    expect(err.message).toBe(
      'access token not valid before 100000000000000000000 (platform time 2030-01-01T00:00:00.000Z)',
    );
  });
});

describe('whom a token is for', () => {
  it('issued to another client is refused naming both', () => {
    const err = errorOf(() => checkAccessToken(jwt({ ...good, azp: 'other' }), ours));
    expect(err.message).toBe('access token was issued to client other, not terminal-app-1001');
  });

  it('without azp the audience must name us: a list, a string, or no audience at all', () => {
    expect(
      checkAccessToken(jwt({ ...good, azp: undefined, aud: ['payment-api', 'terminal-app-1001'] }), ours).clientId,
    ).toBe('terminal-app-1001');
    const err = errorOf(() => checkAccessToken(jwt({ ...good, azp: undefined, aud: undefined }), ours));
    expect(err.message).toBe('access token audience does not contain client terminal-app-1001');
    expect(errorOf(() => checkAccessToken(jwt({ ...good, azp: undefined, aud: ['payment-api'] }), ours)).code).toBe(
      ErrorCodes.AUTH_TOKEN_INVALID,
    );
  });

  it('azp naming us is enough, whatever the audience', () => {
    expect(() => checkAccessToken(jwt({ ...good, aud: undefined }), ours)).not.toThrow();
    expect(() => checkAccessToken(jwt({ ...good, aud: 'payment-api' }), ours)).not.toThrow();
  });

  it('bound to another certificate: the mismatch names both thumbprints', () => {
    const err = errorOf(() => checkAccessToken(jwt({ ...good, cnf: { 'x5t#S256': 'X' } }), ours));
    expect(err.code).toBe(ErrorCodes.AUTH_BINDING_MISMATCH);
    expect(err.message).toBe('access token is bound to another certificate than this device certificate');
    expect(err.details).toEqual({ expected: 'T', bound: 'X' });
  });
});

describe('the claims the agent uses', () => {
  it('every claim typed, scopes split on single or repeated spaces', () => {
    const info = checkAccessToken(
      jwt({
        ...good,
        sub: 'u-1',
        entityId: 'm-1',
        user_domain: 'd',
        preferred_username: 'ann',
        scope: ' profile  auth ',
        iat: nowS - 5,
        iss: 'https://idp',
      }),
      ours,
    );
    expect(info).toEqual({
      clientId: 'terminal-app-1001',
      subject: 'u-1',
      merchantId: 'm-1',
      userDomain: 'd',
      username: 'ann',
      scopes: ['profile', 'auth'],
      issuedAt: new Date((nowS - 5) * 1000),
      expiresAt: new Date((nowS + 300) * 1000),
      boundThumbprint: 'T',
      issuer: 'https://idp',
    });
  });

  it('absent optional claims are absent, no scope is no scopes', () => {
    const info = checkAccessToken(jwt({ exp: nowS + 60, aud: 'terminal-app-1001' }), ours);
    expect(info).toEqual({
      clientId: 'terminal-app-1001',
      subject: undefined,
      merchantId: undefined,
      userDomain: undefined,
      username: undefined,
      scopes: [],
      issuedAt: undefined,
      expiresAt: new Date((nowS + 60) * 1000),
      boundThumbprint: undefined,
      issuer: undefined,
    });
  });
});
