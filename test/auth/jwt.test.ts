import { describe, expect, it } from 'vitest';
import { checkAccessToken, decodeJwtPayload } from '../../src/auth/jwt.js';
import { selectMerchant, type MerchantCredentials } from '../../src/auth/merchant-credentials.js';
import { jwt } from './fake-tokens.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const nowS = NOW / 1000;
const expect0 = { clientId: 'terminal-app-1001', thumbprint: 'T', leewaySeconds: 30, platformNowMs: NOW };
const good = {
  iat: nowS,
  nbf: nowS,
  exp: nowS + 300,
  azp: 'terminal-app-1001',
  aud: ['terminal-app-1001', 'payment-api'],
  sub: 'u',
  scope: 'profile email auth',
  entityId: 'm-1001',
  cnf: { 'x5t#S256': 'T' },
};

describe('access token checks (decoded, never trusted)', () => {
  it('gives typed claims', () => {
    const info = checkAccessToken(jwt(good), expect0);
    expect(info).toMatchObject({
      clientId: 'terminal-app-1001',
      merchantId: 'm-1001',
      scopes: ['profile', 'email', 'auth'],
      boundThumbprint: 'T',
    });
    expect(info.expiresAt.toISOString()).toBe('2030-01-01T00:05:00.000Z');
  });

  it('accepts exp and nbf within the leeway, refuses beyond it', () => {
    expect(() => checkAccessToken(jwt({ ...good, exp: nowS - 29 }), expect0)).not.toThrow();
    expect(() => checkAccessToken(jwt({ ...good, exp: nowS - 30 }), expect0)).toThrow(/expired on arrival/);
    expect(() => checkAccessToken(jwt({ ...good, nbf: nowS + 29 }), expect0)).not.toThrow();
    expect(() => checkAccessToken(jwt({ ...good, nbf: nowS + 31 }), expect0)).toThrow(/not valid before/);
  });

  it('checks azp and aud against our client id', () => {
    expect(() => checkAccessToken(jwt({ ...good, azp: 'other' }), expect0)).toThrow(/issued to client other/);
    expect(() => checkAccessToken(jwt({ ...good, azp: undefined, aud: 'payment-api' }), expect0)).toThrow(/audience/);
    expect(() => checkAccessToken(jwt({ ...good, azp: undefined, aud: 'terminal-app-1001' }), expect0)).not.toThrow();
  });

  it('a cnf of another certificate is AUTH_BINDING_MISMATCH', () => {
    expect(() => checkAccessToken(jwt({ ...good, cnf: { 'x5t#S256': 'X' } }), expect0)).toThrow(
      expect.objectContaining({ code: 'AUTH_BINDING_MISMATCH' }),
    );
    expect(() => checkAccessToken(jwt({ ...good, cnf: {} }), expect0)).not.toThrow();
  });

  it('a token without cnf (machine to machine, no auth scope) is accepted and reported as not bound', () => {
    const info = checkAccessToken(jwt({ ...good, scope: 'profile email', cnf: undefined }), expect0);
    expect(info.boundThumbprint).toBeUndefined();
    expect(info.scopes).toEqual(['profile', 'email']);
  });

  it('refuses what is not a JWT, or has claims of the wrong type, naming the claim', () => {
    expect(() => decodeJwtPayload('opaque-token')).toThrow(expect.objectContaining({ code: 'AUTH_TOKEN_INVALID' }));
    expect(() => decodeJwtPayload('a.!!!.c')).toThrow(/base64url JSON/);
    expect(() => decodeJwtPayload(jwt({ ...good, exp: 'soon' }))).toThrow(/claim exp/);
  });
});

describe('default merchant', () => {
  const m = (clientId: string, merchantName: string): MerchantCredentials => ({
    clientId,
    merchantName,
    userDomain: 'd',
    clientSecret: 's',
  });
  const list = [m('terminal-app-1001', 'Demo Coffee'), m('terminal-app-1002', 'Demo Books')];

  it('is the configured one, by clientId or (case-insensitive) name', () => {
    expect(selectMerchant(list, 'terminal-app-1002').merchant.merchantName).toBe('Demo Books');
    expect(selectMerchant(list, 'demo books').merchant.clientId).toBe('terminal-app-1002');
  });

  it('is the only one, or the first of several with a warning flag', () => {
    expect(selectMerchant([list[0] as MerchantCredentials], undefined)).toMatchObject({ ambiguous: false });
    expect(selectMerchant(list, undefined)).toMatchObject({
      ambiguous: true,
      merchant: { clientId: 'terminal-app-1001' },
    });
  });

  it('none listed, or the configured one missing, is AUTH_NO_MERCHANT without secrets in the message', () => {
    expect(() => selectMerchant([], undefined)).toThrow(expect.objectContaining({ code: 'AUTH_NO_MERCHANT' }));
    let message = '';
    try {
      selectMerchant(list, 'Nobody');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('Demo Books [terminal-app-1002]');
    expect(message).not.toMatch(/"s"|clientSecret/);
  });
});
