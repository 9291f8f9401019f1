import type { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';

// node:tls loaded before toLegacyObject() below: that call loads node's _tls_common, and when
// node:tls was not loaded yet, node 22 leaves its TLS socket code with a half-built tls
// module, so every later TLS connection fails with "tls.createSecureContext is not a
// function" (the platform client loads node:tls only at its first connection since it no
// longer loads undici's index: docs/performance.md, "Memory"). By require, not an ES
// import: the ES import's module facade reads the lazy `rootCertificates` export, which
// parses node's whole CA store (about 1.4 MiB) the agent never uses.
createRequire(import.meta.url)('node:tls');

/**
 * The terminal serial number is the `serialNumber` attribute (OID 2.5.4.5) of the
 * certificate subject, not the certificate's own serial number: that attribute is what
 * the platform knows the terminal by (docs/platform-contract.md, "Hosts and TLS").
 * Returns undefined when the attribute is absent or empty.
 */
export function subjectSerialNumber(cert: X509Certificate): string | undefined {
  const subject = cert.toLegacyObject().subject as unknown as Record<string, string | string[] | undefined>;
  const value = subject.serialNumber;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? undefined : first.trim();
}

/** Node prints a distinguished name one attribute per line; one line reads better in logs and the CLI. */
export function oneLineName(name: string): string {
  return name
    .split('\n')
    .filter((p) => p !== '')
    .join(', ');
}
