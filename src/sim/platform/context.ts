import type { Logger } from 'pino';
import type { Clock } from '../../core/index.js';
import type { FaultInjector } from './faults.js';
import type { SimProfile, SimProfileName } from './profile.js';
import type { Seed } from './seed.js';

/** Claims of an access token the demo platform issued, as the payment API needs them. */
export interface AccessClaims {
  sub: string;
  azp: string;
  aud: string | string[];
  exp: number;
  nbf: number;
  iat: number;
  jti: string;
  iss: string;
  scope: string;
  /** Merchant the token acts for (profile scope `entityId`). */
  entityId?: string;
  cnf?: { 'x5t#S256': string };
  [claim: string]: unknown;
}

/** Implemented by the authorization server; used by the payment API to check Bearer tokens. */
export interface TokenVerifier {
  /**
   * Verifies signature, expiry (platform clock) and, when the call arrived with a client
   * certificate, that `cnf.x5t#S256` equals its thumbprint. Throws SimHttpError 401.
   */
  verifyBearer(authorization: string | undefined, clientThumbprint: string | undefined): AccessClaims;
}

export interface SimSettings {
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  walletPayDelayMs: number;
  qrExpirySeconds: number;
  /** The answering profile at start (docs/demo-platform.md, "Demo platform"). */
  profile: SimProfileName;
}

/** Shared by every part of the demo platform; no module-level state anywhere. */
export interface SimContext {
  seed: Seed;
  settings: SimSettings;
  faults: FaultInjector;
  /** standard or strict, switchable at run time by the control route. */
  profile: SimProfile;
  /** The platform's clock: real time plus the injected offset. */
  now: () => number;
  /** Real time and timers (wallet outcomes, injected latency); `now` adds the offset to its wall time. */
  clock: Clock;
  log: Logger;
  /** Filled in by the authorization server when it is built. */
  tokens: TokenVerifier;
  /** Base URLs as seen by clients, e.g. https://127.0.0.1:8443 and https://127.0.0.1:9021. */
  urls: { api: string; mtls: string };
}
