import { createHash, type X509Certificate } from 'node:crypto';

/**
 * RFC 8705 section 3.1 `x5t#S256`: the base64url-encoded (no padding) SHA-256 digest of
 * the DER encoding of the certificate. Tokens bound to the certificate carry it in `cnf`.
 */
export function x5tS256(cert: X509Certificate | Buffer): string {
  const der = Buffer.isBuffer(cert) ? cert : cert.raw;
  return createHash('sha256').update(der).digest('base64url');
}
