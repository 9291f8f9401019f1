import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { AgentError, ErrorCodes } from '../core/index.js';
import { oneLineName, subjectSerialNumber } from './subject.js';
import { x5tS256 } from './thumbprint.js';

export interface DeviceIdentity {
  certPem: string;
  /** Never logged: not enumerable, so JSON and log serializers skip it. */
  keyPem: string;
  caPem: string;
  /** From the subject's serialNumber attribute: the terminal serial number. */
  serialNumber: string;
  /** RFC 8705 x5t#S256: base64url(SHA-256(DER)). */
  thumbprint: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** Colon-separated SHA-256 fingerprint, to notice a certificate change. */
  fingerprint256: string;
}

export interface LoadIdentityOptions {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** Refuse a key file readable by group or others (default true). */
  enforceKeyMode?: boolean;
  now?: Date;
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable by this user'
          : `cannot be read (${code})`;
    throw new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      `${what} ${file} ${why}: check the identity settings or run \`terminal-agent certs gen-dev\` for development`,
      {
        cause: err,
        details: { file },
      },
    );
  }
}

/**
 * Key files must be 0600 (docs/operations.md, "Certificates and key permissions"):
 * start-up refuses looser modes and names the fix.
 */
function checkKeyMode(keyFile: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(keyFile).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new AgentError(
      ErrorCodes.KEY_PERMISSIONS,
      `device key ${keyFile} is readable by group or others (mode ${mode.toString(8).padStart(4, '0')}): run \`chmod 600 ${keyFile}\``,
      { details: { file: keyFile, mode: mode.toString(8) } },
    );
  }
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function parseCertificates(pem: string, file: string, what: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERT) ?? [];
  const notACert = (cause?: unknown): AgentError =>
    new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      `${what} ${file} is not a PEM certificate: replace it with the right file`,
      {
        cause,
        details: { file },
      },
    );
  if (blocks.length === 0) throw notACert();
  try {
    return blocks.map((b) => new X509Certificate(b));
  } catch (err) {
    throw notACert(err);
  }
}

function parseKey(pem: string, file: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (err) {
    throw new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      `device key ${file} is not an unencrypted PEM private key: replace it with the key of the device certificate`,
      {
        cause: err,
        details: { file },
      },
    );
  }
}

function certDate(value: string, file: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) {
    throw new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      `device certificate ${file} has an unreadable validity date: replace it`,
      { details: { file } },
    );
  }
  return d;
}

/**
 * Reads and checks cert, key and CA without judging the validity window: what
 * `certs show` needs to describe an expired certificate. Start-up uses loadIdentity.
 */
export function readIdentity(opts: LoadIdentityOptions): DeviceIdentity {
  const certPem = readPem(opts.certFile, 'device certificate');
  const keyPem = readPem(opts.keyFile, 'device key');
  const caPem = readPem(opts.caFile, 'platform CA');
  if (opts.enforceKeyMode ?? true) checkKeyMode(opts.keyFile);

  const [cert] = parseCertificates(certPem, opts.certFile, 'device certificate');
  parseCertificates(caPem, opts.caFile, 'platform CA');
  const key = parseKey(keyPem, opts.keyFile);
  if (cert === undefined)
    throw new AgentError(ErrorCodes.CERT_UNREADABLE, `device certificate ${opts.certFile} is empty`, {
      details: { file: opts.certFile },
    });
  if (!cert.checkPrivateKey(key)) {
    throw new AgentError(
      ErrorCodes.CERT_KEY_MISMATCH,
      `device key ${opts.keyFile} does not belong to device certificate ${opts.certFile}: install the matching key and certificate`,
      { details: { certFile: opts.certFile, keyFile: opts.keyFile } },
    );
  }
  const serialNumber = subjectSerialNumber(cert);
  if (serialNumber === undefined) {
    throw new AgentError(
      ErrorCodes.CERT_NO_SERIAL,
      `device certificate ${opts.certFile} has no serialNumber attribute in its subject: it is not a terminal certificate`,
      { details: { file: opts.certFile } },
    );
  }
  const identity = {
    certPem,
    caPem,
    serialNumber,
    thumbprint: x5tS256(cert),
    subject: oneLineName(cert.subject),
    issuer: oneLineName(cert.issuer),
    notBefore: certDate(cert.validFrom, opts.certFile),
    notAfter: certDate(cert.validTo, opts.certFile),
    fingerprint256: cert.fingerprint256,
  } as DeviceIdentity;
  // The private key stays out of JSON.stringify, pino and util.inspect output.
  Object.defineProperty(identity, 'keyPem', { value: keyPem, enumerable: false, writable: false });
  return identity;
}

/**
 * Loads the device identity for start-up: readable files, key mode 0600, key matches
 * certificate, serial number present, and the certificate valid now. Each failure is one
 * line naming the file and what to do.
 */
export function loadIdentity(opts: LoadIdentityOptions): DeviceIdentity {
  const identity = readIdentity(opts);
  const now = opts.now ?? new Date();
  if (now.getTime() < identity.notBefore.getTime()) {
    throw new AgentError(
      ErrorCodes.CERT_NOT_YET_VALID,
      `device certificate ${opts.certFile} is not valid before ${identity.notBefore.toISOString()} but the clock says ${now.toISOString()}: check the terminal's clock`,
      { details: { file: opts.certFile, notBefore: identity.notBefore.toISOString() } },
    );
  }
  if (now.getTime() >= identity.notAfter.getTime()) {
    throw new AgentError(
      ErrorCodes.CERT_EXPIRED,
      `device certificate ${opts.certFile} expired on ${identity.notAfter.toISOString()}: install a renewed device certificate`,
      { details: { file: opts.certFile, notAfter: identity.notAfter.toISOString() } },
    );
  }
  return identity;
}
