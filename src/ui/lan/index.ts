/**
 * The store-network listener for paired cash registers (docs/registers.md): TLS with the
 * terminal's own certificate, pairing with a one-time code, and each register's own
 * payment routes and events.
 */
export { createLanApi, type LanApi, type LanApiOptions } from './lan-api.js';
export { DEFAULT_PAIRING_LIMITS, PairingDesk, type PairingLimits, type PairingOffer } from './pairing.js';
export { RegisterStore, registersFile, type RegisterView } from './register-store.js';
export { loadOrCreateServerCertificate, serverCertificatePaths, type ServerCertificate } from './server-certificate.js';
