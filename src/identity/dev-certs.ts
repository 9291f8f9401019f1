import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AgentError, ErrorCodes } from '../core/index.js';

/**
 * Development PKI, made offline with the openssl command: a platform CA, the platform's
 * server certificate (localhost, 127.0.0.1, ::1), the demo terminal's device certificate,
 * a device certificate for a terminal the platform does not know, an expired one, and
 * one from a foreign CA. Keys are written 0600.
 */
export const DEV_TERMINAL_SERIAL = 'TA-0001';
export const UNKNOWN_TERMINAL_SERIAL = 'TA-9999';

export interface DevCertPaths {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  deviceCert: string;
  deviceKey: string;
  unknownCert: string;
  unknownKey: string;
  expiredCert: string;
  expiredKey: string;
  foreignCert: string;
  foreignKey: string;
}

export function devCertPaths(dir: string): DevCertPaths {
  const p = (name: string): string => join(dir, name);
  return {
    dir,
    caCert: p('platform-ca.crt'),
    caKey: p('platform-ca.key'),
    serverCert: p('platform-server.crt'),
    serverKey: p('platform-server.key'),
    deviceCert: p('device.crt'),
    deviceKey: p('device.key'),
    unknownCert: p('device-unknown.crt'),
    unknownKey: p('device-unknown.key'),
    expiredCert: p('device-expired.crt'),
    expiredKey: p('device-expired.key'),
    foreignCert: p('device-foreign.crt'),
    foreignKey: p('device-foreign.key'),
  };
}

/** Every file of a development set (the folder left out). */
export function devCertFiles(paths: DevCertPaths): string[] {
  const { dir: _dir, ...files } = paths;
  return Object.values(files);
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      missing
        ? 'dev certificates: the openssl command is not installed (apt-get install openssl)'
        : `dev certificates: openssl ${args[0]} failed: ${stderr ?? ''}`,
      { cause: err },
    );
  }
}

function newKey(file: string, cwd: string): void {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file], cwd);
  chmodSync(file, 0o600);
}

/** Signs `subject` with the CA through `openssl ca`, which accepts explicit start and end dates. */
function issue(
  work: string,
  ca: { cert: string; key: string },
  key: string,
  out: string,
  subject: string,
  extensions: string,
  dates: { start: string; end: string },
): void {
  const csr = join(work, 'req.csr');
  openssl(['req', '-new', '-key', key, '-subj', subject, '-out', csr], work);
  const db = join(work, 'db');
  rmSync(db, { recursive: true, force: true });
  mkdirSync(db);
  writeFileSync(join(db, 'index.txt'), '');
  writeFileSync(join(db, 'serial'), `${randomBytes(8).toString('hex').replace(/^./, '1')}\n`);
  const cnf = join(work, 'ca.cnf');
  writeFileSync(
    cnf,
    [
      '[ca]',
      'default_ca = dev',
      '[dev]',
      `database = ${join(db, 'index.txt')}`,
      `new_certs_dir = ${db}`,
      `serial = ${join(db, 'serial')}`,
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      'copy_extensions = none',
      '[any]',
      'commonName = supplied',
      'serialNumber = optional',
      'organizationName = optional',
      '[ext]',
      extensions,
      '',
    ].join('\n'),
  );
  openssl(
    [
      'ca',
      '-batch',
      '-config',
      cnf,
      '-extensions',
      'ext',
      '-cert',
      ca.cert,
      '-keyfile',
      ca.key,
      '-in',
      csr,
      '-out',
      out,
      '-notext',
      '-startdate',
      dates.start,
      '-enddate',
      dates.end,
      '-preserveDN',
    ],
    work,
  );
}

function asn1Time(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
}

export interface GenerateOptions {
  /** Overwrite files that exist. */
  force?: boolean;
  now?: Date;
}

export function generateDevCerts(dir: string, opts: GenerateOptions = {}): DevCertPaths {
  const paths = devCertPaths(dir);
  const all = devCertFiles(paths);
  if (!opts.force && all.every((f) => existsSync(f))) return paths;
  // certs/ is also where a real device certificate lives: never overwrite part of a set silently.
  const existing = all.find((f) => existsSync(f));
  if (!opts.force && existing !== undefined) {
    throw new AgentError(
      ErrorCodes.CERT_UNREADABLE,
      `dev certificates: ${existing} already exists and is not part of a complete dev set: move it away or use --force to overwrite`,
      {
        details: { file: existing },
      },
    );
  }
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'terminal-agent-pki-'));
  const now = opts.now ?? new Date();
  const days = (n: number): Date => new Date(now.getTime() + n * 86_400_000);
  const valid = { start: asn1Time(days(-1)), end: asn1Time(days(365)) };
  try {
    for (const [key, cert, cn] of [
      [paths.caKey, paths.caCert, 'Terminal Agent Dev Platform CA'],
      [join(work, 'foreign-ca.key'), join(work, 'foreign-ca.crt'), 'Foreign Dev CA'],
    ] as const) {
      newKey(key, work);
      openssl(
        [
          'req',
          '-x509',
          '-new',
          '-key',
          key,
          '-subj',
          `/CN=${cn}/O=Terminal Agent Dev`,
          '-days',
          '3650',
          '-out',
          cert,
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign,cRLSign',
        ],
        work,
      );
    }
    const ca = { cert: paths.caCert, key: paths.caKey };
    const clientExt =
      'basicConstraints = CA:FALSE\nkeyUsage = critical, digitalSignature\nextendedKeyUsage = clientAuth';
    newKey(paths.serverKey, work);
    issue(
      work,
      ca,
      paths.serverKey,
      paths.serverCert,
      '/CN=localhost/O=Demo Payment Platform',
      'basicConstraints = CA:FALSE\nkeyUsage = critical, digitalSignature\nextendedKeyUsage = serverAuth\nsubjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1',
      valid,
    );
    newKey(paths.deviceKey, work);
    issue(
      work,
      ca,
      paths.deviceKey,
      paths.deviceCert,
      `/CN=Terminal ${DEV_TERMINAL_SERIAL}/serialNumber=${DEV_TERMINAL_SERIAL}/O=Demo Terminals`,
      clientExt,
      valid,
    );
    newKey(paths.unknownKey, work);
    issue(
      work,
      ca,
      paths.unknownKey,
      paths.unknownCert,
      `/CN=Terminal ${UNKNOWN_TERMINAL_SERIAL}/serialNumber=${UNKNOWN_TERMINAL_SERIAL}/O=Demo Terminals`,
      clientExt,
      valid,
    );
    newKey(paths.expiredKey, work);
    issue(
      work,
      ca,
      paths.expiredKey,
      paths.expiredCert,
      `/CN=Terminal ${DEV_TERMINAL_SERIAL}/serialNumber=${DEV_TERMINAL_SERIAL}/O=Demo Terminals`,
      clientExt,
      {
        start: asn1Time(days(-400)),
        end: asn1Time(days(-35)),
      },
    );
    newKey(paths.foreignKey, work);
    issue(
      work,
      { cert: join(work, 'foreign-ca.crt'), key: join(work, 'foreign-ca.key') },
      paths.foreignKey,
      paths.foreignCert,
      `/CN=Terminal ${DEV_TERMINAL_SERIAL}/serialNumber=${DEV_TERMINAL_SERIAL}/O=Elsewhere`,
      clientExt,
      valid,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return paths;
}
