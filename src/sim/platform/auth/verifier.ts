import { z } from 'zod';
import { verifyJwtSignature } from '../jwt.js';
import { SimHttpError } from '../router.js';
import type { AccessClaims, SimContext, TokenVerifier } from '../context.js';
import { issuerUrl, signingKey } from './token-issuer.js';

const accessClaimsSchema = z.looseObject({
  typ: z.literal('Bearer'),
  sub: z.string(),
  azp: z.string(),
  aud: z.union([z.string(), z.array(z.string())]),
  exp: z.number(),
  nbf: z.number(),
  iat: z.number(),
  jti: z.string(),
  iss: z.string(),
  scope: z.string(),
  entityId: z.string().optional(),
  // The strict profile writes an unbound token's cnf as null.
  cnf: z
    .strictObject({ 'x5t#S256': z.string() })
    .nullish()
    .transform((v) => v ?? undefined),
});

function invalidToken(description: string): SimHttpError {
  // RFC 6750 3.1; the description goes in the body only, and never names the token.
  return new SimHttpError(401, 'invalid_token', description, { 'www-authenticate': 'Bearer error="invalid_token"' });
}

/**
 * Checks a Bearer access token for the payment API and the custom-token endpoint:
 * signature, type, issuer, nbf/exp against the platform clock, and the RFC 8705 binding:
 * a token with `cnf` is only accepted over a connection with the same client certificate.
 */
export function createVerifier(ctx: SimContext): TokenVerifier {
  const key = signingKey(ctx);
  return {
    verifyBearer(authorization: string | undefined, clientThumbprint: string | undefined): AccessClaims {
      const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization?.trim() ?? '');
      if (m === null) throw invalidToken('a Bearer access token is required');
      const checked = verifyJwtSignature(m[1] as string, key);
      if (!checked.ok) throw invalidToken(`access token refused: ${checked.reason}`);
      const parsed = accessClaimsSchema.safeParse(checked.claims);
      if (!parsed.success) throw invalidToken('not an access token of this platform');
      const claims = parsed.data;
      if (claims.iss !== issuerUrl(ctx)) throw invalidToken('access token from another issuer');
      const now = Math.floor(ctx.now() / 1000);
      // Valid while the current time is before exp (docs/platform-contract.md, "Tokens").
      if (now >= claims.exp) throw invalidToken('access token expired');
      if (now < claims.nbf) throw invalidToken('access token not yet valid');
      const bound = claims.cnf?.['x5t#S256'];
      if (bound !== undefined) {
        if (clientThumbprint === undefined)
          throw invalidToken('access token is bound to a client certificate; none was presented');
        if (clientThumbprint !== bound) throw invalidToken('access token is bound to another client certificate');
      }
      return claims;
    },
  };
}
