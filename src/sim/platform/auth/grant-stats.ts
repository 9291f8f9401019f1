import type { GrantType } from './grant.js';

export type GrantCounts = Record<GrantType, number>;

export interface AuthStats {
  /** Tokens issued, by grant type. */
  granted: GrantCounts;
  /** Token requests refused, by grant type (unparseable grant types are not counted). */
  refused: GrantCounts;
}

const zero = (): GrantCounts => ({ authorization_code: 0, refresh_token: 0, client_credentials: 0, password: 0, custom_token: 0 });

/** Counts grants so tests can prove, e.g., that concurrent callers shared one refresh. */
export class GrantStats {
  private granted = zero();
  private refused = zero();

  count(type: GrantType, ok: boolean): void {
    (ok ? this.granted : this.refused)[type]++;
  }

  snapshot(): AuthStats {
    return { granted: { ...this.granted }, refused: { ...this.refused } };
  }
}
