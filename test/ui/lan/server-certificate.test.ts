import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateServerCertificate, serverCertificatePaths } from '../../../src/ui/lan/server-certificate.js';
import { testLogger } from '../../helpers/log-sink.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe("the terminal's store-network certificate", () => {
  const dirs: Array<() => void> = [];
  afterEach(() => dirs.splice(0).forEach((c) => c()));
  function dataDir(): string {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    return tmp.dir;
  }

  it('is made once with a 0600 key, names the configured hosts, and has the fingerprint openssl prints', () => {
    const dir = dataDir();
    const { log } = testLogger();
    const made = loadOrCreateServerCertificate(dir, ['till-terminal.store.lan', '192.0.2.2'], log);
    const paths = serverCertificatePaths(dir);
    expect(statSync(paths.key).mode & 0o777).toBe(0o600);
    expect(made.names).toEqual(expect.arrayContaining(['localhost', 'till-terminal.store.lan', '192.0.2.2']));
    const printed = execFileSync('openssl', ['x509', '-in', paths.cert, '-noout', '-fingerprint', '-sha256'], {
      encoding: 'utf8',
    });
    expect(printed.trim().split('=')[1]).toBe(made.fingerprint);
    const again = loadOrCreateServerCertificate(dir, ['192.0.2.2'], log);
    expect(again.fingerprint).toBe(made.fingerprint);
  });

  it('is made again when a configured name is missing from it, or it is damaged, and says registers must pin again', () => {
    const dir = dataDir();
    const { log, sink } = testLogger();
    const first = loadOrCreateServerCertificate(dir, ['192.0.2.2'], log);
    const second = loadOrCreateServerCertificate(dir, ['192.0.2.2', 'till.store.lan'], log);
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect(sink.text()).toMatch(/must pin the new fingerprint/);
    writeFileSync(serverCertificatePaths(dir).cert, 'not a certificate');
    const third = loadOrCreateServerCertificate(dir, ['192.0.2.2'], log);
    expect(third.fingerprint).not.toBe(second.fingerprint);
  });

  it('is renewed in its last 30 days', () => {
    const dir = dataDir();
    const { log } = testLogger();
    const first = loadOrCreateServerCertificate(dir, [], log);
    const late = new Date(Date.parse(first.notAfter) - 10 * 24 * 3_600_000);
    expect(loadOrCreateServerCertificate(dir, [], log, late).fingerprint).not.toBe(first.fingerprint);
  });
});
