import { createHmac, timingSafeEqual } from 'node:crypto';

/** Compact HS256 JWTs as the platform issues them (header typ/alg/kid; docs/platform-contract.md, "Tokens"). */
export type JwtClaims = Record<string, unknown>;

const b64url = (buf: Buffer | string): string => Buffer.from(buf).toString('base64url');

export function signJwt(claims: JwtClaims, key: Buffer, kid: string): string {
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256', kid }));
  const payload = b64url(JSON.stringify(claims));
  const sig = createHmac('sha256', key).update(`${header}.${payload}`).digest();
  return `${header}.${payload}.${b64url(sig)}`;
}

export type JwtVerifyResult = { ok: true; claims: JwtClaims } | { ok: false; reason: string };

/** Checks structure, algorithm and signature; expiry is the caller's (it owns the clock). */
export function verifyJwtSignature(token: string, key: Buffer): JwtVerifyResult {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed token' };
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: JwtClaims;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: unknown };
    claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as JwtClaims;
  } catch {
    return { ok: false, reason: 'malformed token' };
  }
  if (header.alg !== 'HS256') return { ok: false, reason: 'unsupported algorithm' };
  const expected = createHmac('sha256', key).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad signature' };
  return { ok: true, claims };
}
