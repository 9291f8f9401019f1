import { z } from 'zod';
import { AgentError, ErrorCodes } from '../core/index.js';
import { nullAsAbsent } from './absent.js';

/**
 * Access-token claims (docs/platform-contract.md, "Tokens"). Decoded, never trusted: the agent cannot check
 * the HS256 signature (the key is the platform's) and does not need to; it checks that the
 * token is current, meant for its client, and bound to its certificate (RFC 8705).
 * The registered claims the contract says are always present keep their types (a null
 * there is refused); the claims of a scope may be absent or null, and null reads as absent
 * (docs/platform-contract.md, "Tolerance of answers", tokens).
 */
const claimsSchema = z.looseObject({
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  sub: z.string().optional(),
  jti: z.string().optional(),
  azp: z.string().optional(),
  exp: z.number(),
  nbf: z.number().optional(),
  iat: z.number().optional(),
  iss: z.string().optional(),
  scope: nullAsAbsent(z.string()),
  entityId: nullAsAbsent(z.string()),
  user_domain: nullAsAbsent(z.string()),
  preferred_username: nullAsAbsent(z.string()),
  device_id: nullAsAbsent(z.string()),
  cnf: nullAsAbsent(z.looseObject({ 'x5t#S256': nullAsAbsent(z.string()) })),
});
export type RawClaims = z.infer<typeof claimsSchema>;

/** What the rest of the agent may rely on, as typed values. */
export interface AccessTokenInfo {
  /** Authorized party (azp), the OAuth client the token was issued to. */
  clientId: string;
  subject: string | undefined;
  /** Merchant for a merchant user or terminal (profile claim entityId). */
  merchantId: string | undefined;
  userDomain: string | undefined;
  username: string | undefined;
  scopes: string[];
  issuedAt: Date | undefined;
  /** From `exp`: the platform's clock. */
  expiresAt: Date;
  /** RFC 8705 x5t#S256 the token is bound to; undefined for a token that is not certificate-bound. */
  boundThumbprint: string | undefined;
  issuer: string | undefined;
}

export function decodeJwtPayload(token: string): RawClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined || parts[1] === '') {
    throw new AgentError(
      ErrorCodes.AUTH_TOKEN_INVALID,
      'access token is not a JWT (expected three dot-separated parts)',
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch (err) {
    throw new AgentError(ErrorCodes.AUTH_TOKEN_INVALID, 'access token payload is not base64url JSON', { cause: err });
  }
  const parsed = claimsSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || '(payload)';
    // Stryker disable next-line LogicalOperator,StringLiteral: zod gives every issue a message, so 'invalid' is never shown
    const what = issue?.message ?? 'invalid';
    throw new AgentError(ErrorCodes.AUTH_TOKEN_INVALID, `access token claim ${where}: ${what}`);
  }
  return parsed.data;
}

export interface ClaimExpectations {
  /** The OAuth client we asked as: must be azp and among aud. */
  clientId: string;
  /** Our certificate's x5t#S256: a token that carries cnf must be bound to it. */
  thumbprint: string;
  leewaySeconds: number;
  /** The platform's clock at receipt (its Date header), else ours. */
  platformNowMs: number;
}

/**
 * Checks exp/nbf with leeway, azp/aud against the client id and, when the token carries
 * cnf.x5t#S256, that it is our thumbprint. A token without cnf is accepted: the platform
 * issues cnf only with the `auth` scope, never to a machine-to-machine client
 * (docs/platform-contract.md, "Tokens"). A binding mismatch is AUTH_BINDING_MISMATCH,
 * anything else AUTH_TOKEN_INVALID.
 */
export function checkAccessToken(token: string, expect: ClaimExpectations): AccessTokenInfo {
  const c = decodeJwtPayload(token);
  const nowS = expect.platformNowMs / 1000;
  // Valid while the current time is before exp (docs/platform-contract.md, "Tokens").
  if (c.exp + expect.leewaySeconds <= nowS) {
    throw new AgentError(
      ErrorCodes.AUTH_TOKEN_INVALID,
      `access token expired on arrival (exp ${iso(c.exp)}, platform time ${iso(nowS)})`,
    );
  }
  if (c.nbf !== undefined && c.nbf - expect.leewaySeconds > nowS) {
    throw new AgentError(
      ErrorCodes.AUTH_TOKEN_INVALID,
      `access token not valid before ${iso(c.nbf)} (platform time ${iso(nowS)})`,
    );
  }
  // No aud at all is [undefined]: it contains no client id either.
  const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (c.azp !== undefined && c.azp !== expect.clientId) {
    throw new AgentError(
      ErrorCodes.AUTH_TOKEN_INVALID,
      `access token was issued to client ${c.azp}, not ${expect.clientId}`,
    );
  }
  if (!aud.includes(expect.clientId) && c.azp !== expect.clientId) {
    throw new AgentError(
      ErrorCodes.AUTH_TOKEN_INVALID,
      `access token audience does not contain client ${expect.clientId}`,
    );
  }
  const bound = c.cnf?.['x5t#S256'];
  if (bound !== undefined && bound !== expect.thumbprint) {
    throw new AgentError(
      ErrorCodes.AUTH_BINDING_MISMATCH,
      'access token is bound to another certificate than this device certificate',
      {
        details: { expected: expect.thumbprint, bound },
      },
    );
  }
  return {
    clientId: c.azp ?? expect.clientId,
    subject: c.sub,
    merchantId: c.entityId,
    userDomain: c.user_domain,
    username: c.preferred_username,
    scopes: (c.scope ?? '').split(' ').filter((s) => s !== ''),
    issuedAt: c.iat === undefined ? undefined : new Date(c.iat * 1000),
    expiresAt: new Date(c.exp * 1000),
    boundThumbprint: bound,
    issuer: c.iss,
  };
}

function iso(seconds: number): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? String(seconds) : d.toISOString();
}
