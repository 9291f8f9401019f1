import type { Agent } from 'undici';
import { undiciAgent } from '../core/index.js';
import type { DeviceIdentity } from './device-identity.js';

export interface MtlsTimeouts {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** The client side of the platform's mutual TLS, shared by the dispatcher and the diagnostics probe. */
export function mtlsTlsOptions(identity: DeviceIdentity): {
  ca: string;
  cert: string;
  key: string;
  minVersion: 'TLSv1.2';
  maxVersion: 'TLSv1.3';
  rejectUnauthorized: true;
} {
  return {
    ca: identity.caPem,
    cert: identity.certPem,
    key: identity.keyPem,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.3',
    rejectUnauthorized: true,
  };
}

/**
 * The undici dispatcher for every platform call: the device certificate as client
 * certificate, the platform CA as the only trust root (no system store), TLS 1.2 to 1.3,
 * HTTP/1.1 with keep-alive. The caller closes it when the identity changes or at stop.
 */
export function createMtlsDispatcher(identity: DeviceIdentity, timeouts: MtlsTimeouts): Agent {
  return undiciAgent({
    connect: {
      ...mtlsTlsOptions(identity),
      timeout: timeouts.connectTimeoutMs,
      keepAlive: true,
    },
    headersTimeout: timeouts.headersTimeoutMs,
    bodyTimeout: timeouts.bodyTimeoutMs,
    keepAliveTimeout: 10_000,
    allowH2: false,
  });
}
