import type { ClockSkew } from './clock-skew.js';
import type { MerchantSummary } from './merchant-credentials.js';
import type { AuthSettings } from './auth-settings.js';
import type { TokenState, TokenStatus } from './token-manager.js';

export type AuthServiceState = 'idle' | 'starting' | 'ready' | 'degraded' | 'error' | 'stopped';

/** Where the service is in its life: before start(), during it, after it, stopped. */
export type AuthPhase = 'idle' | 'starting' | 'started' | 'stopped';

export interface MerchantStatus extends MerchantSummary {
  /** Platform merchant id (token claim entityId), once a token was seen. */
  merchantId?: string;
  default: boolean;
}

export interface AuthStatus {
  /** ready: the default merchant holds a token; degraded: it does, or is getting one, but something is wrong (see tokens, clockSkew). */
  state: AuthServiceState;
  /** The default merchant holds a valid token (what a health check asks). */
  hasToken: boolean;
  mode: AuthSettings['mode'];
  serialNumber: string;
  /** Our certificate's x5t#S256 (not a secret). */
  thumbprint: string;
  merchants: MerchantStatus[];
  tokens: TokenStatus[];
  clockSkew?: ClockSkew;
  /** custom_token mode: no device token until the merchant signs in with the platform on the counter page. */
  signInRequired?: boolean;
  /** Failure reading the merchant credentials, if that is what stands in the way. */
  lastError?: { code: string; message: string; at: string };
}

const ERROR_STATES: ReadonlySet<TokenState> = new Set([
  'config_fault',
  'binding_mismatch',
  'cert_refused',
  'cert_expired',
  'unknown_terminal',
  'token_invalid',
  'sign_in_required',
]);

export interface OverallInput {
  phase: AuthPhase;
  /** The default merchant's token status, once it has a token manager. */
  main: TokenStatus | undefined;
  /** Reading the merchant credentials failed last time. */
  credentialsFailed: boolean;
  /** The measured clock skew exceeds the JWT leeway. */
  skewExceedsLeeway: boolean;
}

/** One word for the whole of device authentication, judged by the default merchant. */
export function overallState(s: OverallInput): AuthServiceState {
  if (s.phase === 'stopped') return 'stopped';
  const st = s.main;
  if (st === undefined) {
    if (s.credentialsFailed) return s.phase === 'starting' ? 'degraded' : 'error';
    return s.phase === 'idle' ? 'idle' : 'starting';
  }
  if (st.hasToken)
    return ERROR_STATES.has(st.state) || st.state === 'retrying' || s.skewExceedsLeeway ? 'degraded' : 'ready';
  if (ERROR_STATES.has(st.state)) return 'error';
  if (st.state === 'retrying') return 'degraded';
  return 'starting';
}
