import { createHash, randomUUID } from 'node:crypto';
import { signJwt } from '../jwt.js';
import type { SimContext } from '../context.js';
import type { Grant } from './grant.js';
import { scopeClaims } from './claims.js';
import type { RefreshStore } from './refresh-store.js';

/** Token response fields exactly as the platform answers them (docs/platform-contract.md, "Tolerance of answers", token). */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  id_token?: string;
  token_type: 'Bearer';
  'not-before-policy': number;
  session_state?: string;
  scope: string;
}

/** The audience every access token carries besides the client id (the platform's `aud` may hold more). */
export const PAYMENT_API_AUDIENCE = 'payment-api';

export function signingKey(ctx: SimContext): Buffer {
  return Buffer.from(ctx.seed.signingKeyHex, 'hex');
}

/** A key id that names the key without revealing it. */
export function keyId(key: Buffer): string {
  return `hs256-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/** The realm URL: iss of every token, as on the platform. */
export function issuerUrl(ctx: SimContext): string {
  return `${ctx.urls.api}/auth/realms/${ctx.seed.realm}`;
}

/** Signs access, refresh and id tokens for a grant and records the refresh token. */
export class TokenIssuer {
  private readonly key: Buffer;
  private readonly kid: string;
  /** The realm's not-before policy: tokens issued before it are revoked (a timestamp, seconds). */
  private readonly notBeforePolicy: number;

  constructor(
    private readonly ctx: SimContext,
    private readonly refresh: RefreshStore,
  ) {
    this.key = signingKey(ctx);
    this.kid = keyId(this.key);
    this.notBeforePolicy = Math.floor(ctx.now() / 1000);
  }

  /** `scope` is what this response grants: the grant's scope or a narrower one. */
  issue(grant: Grant, scope: readonly string[]): TokenResponse {
    const nowMs = this.ctx.now();
    const iat = Math.floor(nowMs / 1000);
    const accessSeconds = this.ctx.settings.accessTokenSeconds;
    const refreshSeconds = this.ctx.settings.refreshTokenSeconds;
    const iss = issuerUrl(this.ctx);
    const scopeText = scope.join(' ');
    const common = { iat, nbf: iat, iss, sub: grant.subject.id, azp: grant.clientId, sid: grant.sessionId, session_state: grant.sessionId };
    const cnf = grant.cnf === undefined ? {} : { cnf: { 'x5t#S256': grant.cnf } };

    const access = signJwt(
      {
        ...common,
        exp: iat + accessSeconds,
        jti: randomUUID(),
        aud: [grant.clientId, PAYMENT_API_AUDIENCE],
        typ: 'Bearer',
        scope: scopeText,
        ...scopeClaims(this.ctx.seed, grant, scope),
        ...cnf,
      },
      this.key,
      this.kid,
    );
    const refreshJti = randomUUID();
    const refreshToken = signJwt(
      { ...common, exp: iat + refreshSeconds, jti: refreshJti, aud: iss, typ: 'Refresh', scope: grant.scope.join(' '), ...cnf },
      this.key,
      this.kid,
    );
    this.refresh.add(refreshJti, grant, (iat + refreshSeconds) * 1000, nowMs);

    const idToken = grant.idToken
      ? signJwt(
          {
            ...common,
            exp: iat + accessSeconds,
            jti: randomUUID(),
            aud: grant.clientId,
            typ: 'ID',
            auth_time: grant.authTime,
            ...scopeClaims(this.ctx.seed, grant, scope.filter((s) => s !== 'auth')),
          },
          this.key,
          this.kid,
        )
      : undefined;
    // Field order follows the platform's answers; id_token and session_state only on the flows that return them.
    return {
      access_token: access,
      expires_in: accessSeconds,
      refresh_expires_in: refreshSeconds,
      refresh_token: refreshToken,
      ...(idToken === undefined ? {} : { id_token: idToken }),
      token_type: 'Bearer',
      // Standard: 0 (no policy set); strict: a real timestamp, as after a realm-wide revocation.
      'not-before-policy': this.ctx.profile.strict ? this.notBeforePolicy : 0,
      ...(grant.reportSession ? { session_state: grant.sessionId } : {}),
      scope: scopeText,
    };
  }
}
