import { createHash, randomUUID } from 'node:crypto';
import { signJwt } from '../jwt.js';
import type { SimContext } from '../context.js';
import type { Grant } from './grant.js';
import { scopeClaims, unfilledClaimsAsNull } from './claims.js';
import type { RefreshStore } from './refresh-store.js';

/**
 * Token response fields exactly as the platform answers them (docs/platform-contract.md,
 * "Tolerance of answers", token). The standard profile leaves out what a flow does not
 * return; the strict one writes it as `null`.
 */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number | null;
  refresh_token: string | null;
  id_token?: string | null;
  token_type: 'Bearer';
  'not-before-policy': number | null;
  session_state?: string | null;
  scope: string;
}

export interface IssueOptions {
  /** False: no refresh token (RFC 6749 4.4.3: a client_credentials answer SHOULD NOT carry one); strict profile only. */
  refreshToken?: boolean;
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
  issue(grant: Grant, scope: readonly string[], opts: IssueOptions = {}): TokenResponse {
    const strict = this.ctx.profile.strict;
    const nowMs = this.ctx.now();
    const iat = Math.floor(nowMs / 1000);
    const accessSeconds = this.ctx.settings.accessTokenSeconds;
    const refreshSeconds = this.ctx.settings.refreshTokenSeconds;
    const iss = issuerUrl(this.ctx);
    const scopeText = scope.join(' ');
    const common = {
      iat,
      nbf: iat,
      iss,
      sub: grant.subject.id,
      azp: grant.clientId,
      sid: grant.sessionId,
      session_state: grant.sessionId,
    };
    const cnf = grant.cnf === undefined ? {} : { cnf: { 'x5t#S256': grant.cnf } };
    const claims = { ...scopeClaims(this.ctx.seed, grant, scope), ...cnf };

    const access = signJwt(
      {
        ...common,
        exp: iat + accessSeconds,
        jti: randomUUID(),
        aud: [grant.clientId, PAYMENT_API_AUDIENCE],
        typ: 'Bearer',
        scope: scopeText,
        ...claims,
        ...(strict ? unfilledClaimsAsNull(scope, claims) : {}),
      },
      this.key,
      this.kid,
    );
    let refreshToken: string | null = null;
    if (!strict || opts.refreshToken !== false) {
      const refreshJti = randomUUID();
      refreshToken = signJwt(
        {
          ...common,
          exp: iat + refreshSeconds,
          jti: refreshJti,
          aud: iss,
          typ: 'Refresh',
          scope: grant.scope.join(' '),
          ...cnf,
        },
        this.key,
        this.kid,
      );
      this.refresh.add(refreshJti, grant, (iat + refreshSeconds) * 1000, nowMs);
    }

    const idToken = grant.idToken
      ? signJwt(
          {
            ...common,
            exp: iat + accessSeconds,
            jti: randomUUID(),
            aud: grant.clientId,
            typ: 'ID',
            auth_time: grant.authTime,
            ...scopeClaims(
              this.ctx.seed,
              grant,
              scope.filter((s) => s !== 'auth'),
            ),
          },
          this.key,
          this.kid,
        )
      : undefined;
    // Field order follows the platform's answers; id_token and session_state only on the flows
    // that return them. Strict: every member a flow does not fill is there as null.
    return {
      access_token: access,
      expires_in: accessSeconds,
      refresh_expires_in: refreshToken === null ? null : refreshSeconds,
      refresh_token: refreshToken,
      ...(idToken !== undefined ? { id_token: idToken } : strict ? { id_token: null } : {}),
      token_type: 'Bearer',
      // Standard: 0 (no policy set). Strict: a real timestamp, as after a realm-wide
      // revocation, on the flows with a user session; null on the others.
      'not-before-policy': strict ? (grant.reportSession ? this.notBeforePolicy : null) : 0,
      ...(grant.reportSession ? { session_state: grant.sessionId } : strict ? { session_state: null } : {}),
      scope: scopeText,
    };
  }
}
