import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { AgentError, ErrorCodes, type Logger } from '../../core/index.js';

/** The terminal's own TLS certificate for the store network (docs/registers.md, "Registers on the store network"). */
export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  /** SHA-256 of the certificate (colon-separated hex, as browsers and openssl print it): what a register pins. */
  fingerprint: string;
  notAfter: string;
  /** Names and addresses the certificate is valid for. */
  names: string[];
}

export const LAN_DIR = 'lan';
const CERT_FILE = 'server.crt';
const KEY_FILE = 'server.key';
/** Renewed this long before it ends, so a register never meets an expired certificate. */
const RENEW_BEFORE_MS = 30 * 24 * 3_600_000;
const VALID_DAYS = 825;

export function serverCertificatePaths(dataDir: string): { dir: string; cert: string; key: string } {
  const dir = join(dataDir, LAN_DIR);
  return { dir, cert: join(dir, CERT_FILE), key: join(dir, KEY_FILE) };
}

function altNames(names: readonly string[]): string {
  return names.map((n) => (isIP(n) !== 0 ? `IP:${n}` : `DNS:${n}`)).join(',');
}

function certNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => part.replace(/^(DNS|IP Address):/, ''));
}

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    throw new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      missing
        ? 'store-network listener: the openssl command is needed to make the terminal certificate (apt-get install openssl)'
        : `store-network listener: openssl ${args[0] ?? ''} failed: ${stderr}`,
      { cause: err },
    );
  }
}

/** A new P-256 key and a self-signed server certificate for `names`, written beside the old ones and moved into place. */
function generate(paths: { dir: string; cert: string; key: string }, names: readonly string[]): void {
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const key = `${paths.key}.new`;
  const cert = `${paths.cert}.new`;
  rmSync(key, { force: true });
  rmSync(cert, { force: true });
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key]);
  chmodSync(key, 0o600);
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-out',
    cert,
    '-days',
    String(VALID_DAYS),
    '-sha256',
    '-subj',
    `/CN=${names[0] ?? 'terminal-agent'}`,
    '-addext',
    `subjectAltName=${altNames(names)}`,
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature',
    '-addext',
    'extendedKeyUsage=serverAuth',
  ]);
  renameSync(key, paths.key);
  renameSync(cert, paths.cert);
}

function read(paths: { cert: string; key: string }): ServerCertificate {
  const certPem = readFileSync(paths.cert, 'utf8');
  const keyPem = readFileSync(paths.key, 'utf8');
  const cert = new X509Certificate(certPem);
  return {
    certPem,
    keyPem,
    fingerprint: cert.fingerprint256,
    notAfter: new Date(cert.validTo).toISOString(),
    names: certNames(cert),
  };
}

/**
 * The certificate registers see on the store-network listener: made at first use and
 * kept in the data directory (key 0600), made again when it nears its end or no longer
 * names every configured host name. A new certificate has a new fingerprint: registers
 * that pinned the old one must pin again (the log says so).
 */
export function loadOrCreateServerCertificate(
  dataDir: string,
  hostNames: readonly string[],
  log: Logger,
  now: Date = new Date(),
): ServerCertificate {
  const paths = serverCertificatePaths(dataDir);
  const names = [...new Set(['localhost', ...hostNames])];
  if (existsSync(paths.cert) && existsSync(paths.key)) {
    try {
      const current = read(paths);
      const missing = names.filter((n) => !current.names.includes(n));
      const ending = Date.parse(current.notAfter) - now.getTime() < RENEW_BEFORE_MS;
      if (missing.length === 0 && !ending) return current;
      log.warn(
        { missing, notAfter: current.notAfter },
        'store-network certificate renewed: paired registers must pin the new fingerprint',
      );
    } catch (err) {
      log.warn(
        { err, file: paths.cert },
        'store-network certificate unreadable; making a new one (paired registers must pin the new fingerprint)',
      );
    }
  }
  generate(paths, names);
  const made = read(paths);
  log.info({ fingerprint: made.fingerprint, names: made.names }, 'store-network certificate made');
  return made;
}

/** The fingerprint of the certificate in the data directory, without making one. */
export function existingServerFingerprint(dataDir: string): string | undefined {
  const paths = serverCertificatePaths(dataDir);
  if (!existsSync(paths.cert)) return undefined;
  try {
    return new X509Certificate(readFileSync(paths.cert)).fingerprint256;
  } catch {
    return undefined;
  }
}
