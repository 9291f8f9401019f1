import { describe, it, expect, afterEach } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import {
  loadIdentity,
  readIdentity,
  x5tS256,
  generateDevCerts,
  DEV_TERMINAL_SERIAL,
} from '../../src/identity/index.js';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testLogger } from '../helpers/log-sink.js';
import { errorOf } from '../helpers/agent-error.js';
import { keyCopy, selfSigned } from './cert-files.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});
function tmp(): string {
  const t = tempDir('terminal-agent-identity-');
  cleanups.push(t.cleanup);
  return t.dir;
}

function device(overrides: Partial<Parameters<typeof loadIdentity>[0]> = {}): Parameters<typeof loadIdentity>[0] {
  const c = testCerts();
  return { certFile: c.deviceCert, keyFile: c.deviceKey, caFile: c.caCert, ...overrides };
}

describe('loadIdentity', () => {
  it('loads the demo device certificate with its serial number, issuer and validity', () => {
    const id = loadIdentity(device());
    expect(id.serialNumber).toBe(DEV_TERMINAL_SERIAL);
    expect(id.subject).toContain(`serialNumber=${DEV_TERMINAL_SERIAL}`);
    expect(id.issuer).toContain('Terminal Agent Dev Platform CA');
    expect(id.notBefore.getTime()).toBeLessThan(Date.now());
    expect(id.notAfter.getTime()).toBeGreaterThan(Date.now());
    expect(id.certPem).toContain('BEGIN CERTIFICATE');
    expect(id.keyPem).toContain('PRIVATE KEY');
    expect(id.caPem).toBe(readFileSync(testCerts().caCert, 'utf8'));
    expect(id.fingerprint256).toBe(new X509Certificate(id.certPem).fingerprint256);
  });

  it('thumbprint equals an independent openssl computation of x5t#S256', () => {
    const id = loadIdentity(device());
    const digest = execFileSync('sh', [
      '-c',
      'openssl x509 -in "$1" -outform DER | openssl dgst -sha256 -binary',
      'sh',
      testCerts().deviceCert,
    ]);
    expect(digest.length).toBe(32);
    const expected = digest.toString('base64url');
    expect(id.thumbprint).toBe(expected);
    expect(id.thumbprint).not.toMatch(/[=+/]/);
    expect(x5tS256(Buffer.from(new X509Certificate(id.certPem).raw))).toBe(expected);
  });

  it('keeps the private key out of JSON and log lines', () => {
    const id = loadIdentity(device());
    expect(JSON.stringify(id)).not.toContain('PRIVATE KEY');
    const { log, sink } = testLogger();
    log.info({ identity: id }, 'identity loaded');
    expect(sink.text()).toContain(DEV_TERMINAL_SERIAL);
    expect(sink.text()).not.toContain('PRIVATE KEY');
  });

  it('refuses an expired certificate', () => {
    const c = testCerts();
    const err = errorOf(() => loadIdentity(device({ certFile: c.expiredCert, keyFile: c.expiredKey })));
    expect(err.code).toBe('CERT_EXPIRED');
    expect(err.message).toContain(c.expiredCert);
    expect(err.message).not.toContain('\n');
    // readIdentity still describes it, for `certs show`.
    expect(readIdentity(device({ certFile: c.expiredCert, keyFile: c.expiredKey })).notAfter.getTime()).toBeLessThan(
      Date.now(),
    );
  });

  it('refuses a certificate at its notAfter instant and accepts it just before', () => {
    const id = loadIdentity(device());
    expect(loadIdentity(device({ now: new Date(id.notAfter.getTime() - 1) })).serialNumber).toBe(DEV_TERMINAL_SERIAL);
    expect(errorOf(() => loadIdentity(device({ now: id.notAfter }))).code).toBe('CERT_EXPIRED');
  });

  it('refuses a key that does not belong to the certificate (device cert with the unknown terminal key)', () => {
    const c = testCerts();
    const err = errorOf(() => loadIdentity(device({ keyFile: c.unknownKey })));
    expect(err.code).toBe('CERT_KEY_MISMATCH');
    expect(err.message).toContain(c.unknownKey);
    expect(err.message).toContain(c.deviceCert);
  });

  it('refuses a key file readable by group or others, naming chmod 600', () => {
    const dir = tmp();
    const key = keyCopy(testCerts().deviceKey, dir, 0o644);
    const err = errorOf(() => loadIdentity(device({ keyFile: key })));
    expect(err.code).toBe('KEY_PERMISSIONS');
    expect(err.message).toContain(`chmod 600 ${key}`);
    expect(err.message).toContain('0644');
    expect(loadIdentity(device({ keyFile: key, enforceKeyMode: false })).serialNumber).toBe(DEV_TERMINAL_SERIAL);
    expect(
      errorOf(() => loadIdentity(device({ keyFile: keyCopy(testCerts().deviceKey, dir, 0o640, 'g.key') }))).code,
    ).toBe('KEY_PERMISSIONS');
    expect(loadIdentity(device({ keyFile: keyCopy(testCerts().deviceKey, dir, 0o400, 'ro.key') })).serialNumber).toBe(
      DEV_TERMINAL_SERIAL,
    );
  });

  it('treats a certificate valid only in the future as a clock fault', () => {
    const dir = tmp();
    const future = generateDevCerts(dir, { now: new Date(Date.now() + 10 * 86_400_000) });
    const opts = { certFile: future.deviceCert, keyFile: future.deviceKey, caFile: future.caCert };
    const err = errorOf(() => loadIdentity(opts));
    expect(err.code).toBe('CERT_NOT_YET_VALID');
    expect(err.message).toContain("check the terminal's clock");
    expect(err.message).toContain(future.deviceCert);
    // With the clock corrected the same files load.
    expect(loadIdentity({ ...opts, now: new Date(Date.now() + 10 * 86_400_000) }).serialNumber).toBe(
      DEV_TERMINAL_SERIAL,
    );
  });

  it('refuses a certificate without a serialNumber attribute in its subject', () => {
    const dir = tmp();
    const { cert, key } = selfSigned(dir, '/CN=Terminal without serial/O=Demo Terminals');
    const err = errorOf(() => loadIdentity({ certFile: cert, keyFile: key, caFile: testCerts().caCert }));
    expect(err.code).toBe('CERT_NO_SERIAL');
    expect(err.message).toContain(cert);
  });

  it('names the missing file', () => {
    const dir = tmp();
    for (const which of ['certFile', 'keyFile', 'caFile'] as const) {
      const missing = join(dir, `missing-${which}.pem`);
      const err = errorOf(() => loadIdentity(device({ [which]: missing })));
      expect(err.code).toBe('CERT_UNREADABLE');
      expect(err.message).toContain(missing);
      expect(err.message).toContain('does not exist');
      expect(err.message).not.toContain('\n');
    }
  });

  it.skipIf(process.getuid?.() === 0)('names an unreadable file', () => {
    const dir = tmp();
    const key = keyCopy(testCerts().deviceKey, dir, 0o000);
    const err = errorOf(() => loadIdentity(device({ keyFile: key })));
    expect(err.code).toBe('CERT_UNREADABLE');
    expect(err.message).toContain(key);
    chmodSync(key, 0o600);
  });

  it('names a path that cannot be read as a file', () => {
    const dir = tmp();
    const err = errorOf(() => loadIdentity(device({ certFile: dir })));
    expect(err.code).toBe('CERT_UNREADABLE');
    expect(err.message).toContain(dir);
    expect(err.message).toContain('EISDIR');
  });

  it('refuses a CA file that is not a certificate', () => {
    const dir = tmp();
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, 'this is not a certificate\n');
    const err = errorOf(() => loadIdentity(device({ caFile: ca })));
    expect(err.code).toBe('CERT_UNREADABLE');
    expect(err.message).toContain(ca);
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
    expect(errorOf(() => loadIdentity(device({ caFile: ca }))).code).toBe('CERT_UNREADABLE');
  });

  it('refuses a garbage certificate or key file', () => {
    const dir = tmp();
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'garbage', { mode: 0o600 });
    expect(errorOf(() => loadIdentity(device({ certFile: garbage }))).code).toBe('CERT_UNREADABLE');
    const keyErr = errorOf(() => loadIdentity(device({ keyFile: garbage })));
    expect(keyErr.code).toBe('CERT_UNREADABLE');
    expect(keyErr.message).toContain(garbage);
  });
});
