import type { GrantType } from './grant.js';

export type GrantCounts = Record<GrantType, number>;

/** Where a token was asked for: the security host's token URLs (user domain and realm), the device token endpoint over mutual TLS, the custom-token call. */
export type TokenEndpointName = 'oauth' | 'mtls' | 'custom';

export interface AuthStats {
  /** Tokens issued, by grant type. */
  granted: GrantCounts;
  /** Token requests refused, by grant type (unparseable grant types are not counted). */
  refused: GrantCounts;
  /** The same, per endpoint: tests prove which endpoint a client used (e.g. refresh at the security host). */
  byEndpoint: Record<TokenEndpointName, { granted: GrantCounts; refused: GrantCounts }>;
}

const zero = (): GrantCounts => ({
  authorization_code: 0,
  refresh_token: 0,
  client_credentials: 0,
  password: 0,
  custom_token: 0,
});
const pair = (): { granted: GrantCounts; refused: GrantCounts } => ({ granted: zero(), refused: zero() });

/** Counts grants so tests can prove, e.g., that concurrent callers shared one refresh. */
export class GrantStats {
  private granted = zero();
  private refused = zero();
  private readonly byEndpoint: AuthStats['byEndpoint'] = { oauth: pair(), mtls: pair(), custom: pair() };

  count(type: GrantType, ok: boolean, endpoint: TokenEndpointName): void {
    (ok ? this.granted : this.refused)[type]++;
    const e = this.byEndpoint[endpoint];
    (ok ? e.granted : e.refused)[type]++;
  }

  snapshot(): AuthStats {
    const copy = (p: { granted: GrantCounts; refused: GrantCounts }) => ({
      granted: { ...p.granted },
      refused: { ...p.refused },
    });
    return {
      granted: { ...this.granted },
      refused: { ...this.refused },
      byEndpoint: {
        oauth: copy(this.byEndpoint.oauth),
        mtls: copy(this.byEndpoint.mtls),
        custom: copy(this.byEndpoint.custom),
      },
    };
  }
}
