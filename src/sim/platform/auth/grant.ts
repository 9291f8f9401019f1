import type { Subject } from './subjects.js';

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials' | 'password' | 'custom_token';

/** How and on which device the resource owner was authenticated (the claims of the `auth` scope). */
export interface DeviceAuth {
  deviceType: string;
  deviceId: string;
  method: string;
  twoFa: string;
  /** Terminal serial number from the client certificate (mTLS grants only). */
  physicalDeviceId?: string;
}

/**
 * What a successful grant established: carried by its refresh token so that a refresh
 * issues the same kind of token (same subject, binding and device), perhaps narrower.
 */
export interface Grant {
  clientId: string;
  subject: Subject;
  /** Scopes granted originally; a refresh may ask for fewer, never more (RFC 6749, section 6). */
  scope: readonly string[];
  device: DeviceAuth;
  /** RFC 8705 x5t#S256 of the client certificate the grant was made with. */
  cnf: string | undefined;
  /** Device and custom-token flows also answer an id_token (docs/platform-contract.md, "Tolerance of answers", token). */
  idToken: boolean;
  /** Keycloak-style session id, returned as session_state by the flows that report it. */
  sessionId: string;
  reportSession: boolean;
  /** Seconds since the epoch when the resource owner authenticated. */
  authTime: number;
}

/** Device classes the platform's `auth` scope claims tell apart (public, machine to machine, …). */
export const PUBLIC_DEVICE: DeviceAuth = { deviceType: 'public', deviceId: 'unknown', method: 'web', twoFa: 'none' };
export const EXTERNAL_MACHINE: DeviceAuth = { deviceType: 'm2m', deviceId: 'unknown', method: 'api', twoFa: 'none' };
