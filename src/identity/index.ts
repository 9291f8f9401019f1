export { loadIdentity, readIdentity, type DeviceIdentity, type LoadIdentityOptions } from './device-identity.js';
export { certificateStatus, type CertificateStatus } from './certificate-status.js';
export { createMtlsDispatcher, mtlsTlsOptions, type MtlsTimeouts } from './mtls-dispatcher.js';
export { x5tS256 } from './thumbprint.js';
export { subjectSerialNumber, oneLineName } from './subject.js';
export {
  generateDevCerts,
  devCertPaths,
  devCertFiles,
  DEV_TERMINAL_SERIAL,
  UNKNOWN_TERMINAL_SERIAL,
  type DevCertPaths,
  type GenerateOptions,
} from './dev-certs.js';
