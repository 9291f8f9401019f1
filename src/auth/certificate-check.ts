import { AgentError, ErrorCodes } from '../core/index.js';

/** What auth needs of the device identity (a DeviceIdentity fits). */
export interface AuthIdentity {
  serialNumber: string;
  /** RFC 8705 x5t#S256 of the device certificate. */
  thumbprint: string;
  /** When given, no token request goes out outside the certificate's validity window. */
  notBefore?: Date;
  notAfter?: Date;
}

/**
 * Throws when no token request may go out because the device certificate is outside its
 * validity window at `nowWall` (ms since the epoch). A platform refusing an expired
 * certificate over TLS 1.3 just closes the connection, which looks like a network fault;
 * our own clock says it plainly (notBefore in the future is a clock fault).
 */
export function checkCertificateValidity(identity: AuthIdentity, nowWall: number): void {
  const { notBefore, notAfter, serialNumber } = identity;
  if (notAfter !== undefined && nowWall >= notAfter.getTime()) {
    throw new AgentError(
      ErrorCodes.CERT_EXPIRED,
      `device certificate of terminal ${serialNumber} expired on ${notAfter.toISOString()}: install a renewed certificate`,
      {
        details: { notAfter: notAfter.toISOString() },
      },
    );
  }
  if (notBefore !== undefined && nowWall < notBefore.getTime()) {
    throw new AgentError(
      ErrorCodes.CERT_NOT_YET_VALID,
      `device certificate of terminal ${serialNumber} is not valid before ${notBefore.toISOString()}: check the terminal's clock`,
      { details: { notBefore: notBefore.toISOString() } },
    );
  }
}
