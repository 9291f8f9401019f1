import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devCertPaths, loadIdentity, DEV_TERMINAL_SERIAL } from '../../src/identity/index.js';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { keyCopy } from './cert-files.js';
import { runCli } from '../helpers/cli.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});
function tmp(): string {
  const t = tempDir('terminal-agent-certs-cli-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** An empty config file, so the repository's config/default.json does not matter. */
function emptyConfig(dir: string): string {
  const file = join(dir, 'agent.json');
  writeFileSync(file, '{}');
  return file;
}

function identityEnv(cert: string, key: string, ca = testCerts().caCert): Record<string, string> {
  return {
    TERMINAL_AGENT_IDENTITY__CERT_FILE: cert,
    TERMINAL_AGENT_IDENTITY__KEY_FILE: key,
    TERMINAL_AGENT_IDENTITY__CA_FILE: ca,
  };
}

describe('terminal-agent certs gen-dev', () => {
  it('writes the dev PKI with 0600 keys, lists the files and never prints key contents', async () => {
    const dir = join(tmp(), 'certs');
    const r = await runCli(['certs', 'gen-dev', '--dir', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const paths = devCertPaths(dir);
    for (const [k, f] of Object.entries(paths)) {
      if (k === 'dir') continue;
      expect(r.stdout).toContain(f);
      if (f.endsWith('.key')) expect(statSync(f).mode & 0o777).toBe(0o600);
    }
    expect(r.stdout).not.toContain('PRIVATE KEY');
    expect(r.stdout).not.toContain(readFileSync(paths.deviceKey, 'utf8').split('\n')[1]);
    expect(
      loadIdentity({ certFile: paths.deviceCert, keyFile: paths.deviceKey, caFile: paths.caCert }).serialNumber,
    ).toBe(DEV_TERMINAL_SERIAL);

    const again = await runCli(['certs', 'gen-dev', '--dir', dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already present');
    const before = readFileSync(paths.deviceCert, 'utf8');
    expect((await runCli(['certs', 'gen-dev', '--dir', dir, '--force'])).code).toBe(0);
    expect(readFileSync(paths.deviceCert, 'utf8')).not.toBe(before);
  });

  it('refuses to overwrite a device certificate that is not part of a dev set without --force', async () => {
    const dir = tmp();
    const real = join(dir, 'device.crt');
    writeFileSync(real, 'the terminal certificate');
    const r = await runCli(['certs', 'gen-dev', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(real);
    expect(r.stderr).toContain('--force');
    expect(readFileSync(real, 'utf8')).toBe('the terminal certificate');
  });
});

describe('terminal-agent certs show', () => {
  it('prints subject, serial number, issuer, validity, days left, state and thumbprint', async () => {
    const c = testCerts();
    const dir = tmp();
    const id = loadIdentity({ certFile: c.deviceCert, keyFile: c.deviceKey, caFile: c.caCert });
    const r = await runCli(['--config', emptyConfig(dir), 'certs', 'show'], identityEnv(c.deviceCert, c.deviceKey));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(id.subject);
    expect(r.stdout).toMatch(new RegExp(`serial number:\\s+${DEV_TERMINAL_SERIAL}`));
    expect(r.stdout).toContain(id.issuer);
    expect(r.stdout).toContain(id.notBefore.toISOString());
    expect(r.stdout).toContain(id.notAfter.toISOString());
    expect(r.stdout).toContain(id.thumbprint);
    expect(r.stdout).toMatch(/state:\s+valid/);
    expect(r.stdout).not.toContain('PRIVATE KEY');
  });

  it('--json gives the same facts to a program', async () => {
    const c = testCerts();
    const r = await runCli(
      ['--config', emptyConfig(tmp()), 'certs', 'show', '--json'],
      identityEnv(c.deviceCert, c.deviceKey),
    );
    expect(r.code).toBe(0);
    const facts = JSON.parse(r.stdout) as Record<string, unknown>;
    const id = loadIdentity({ certFile: c.deviceCert, keyFile: c.deviceKey, caFile: c.caCert });
    expect(facts).toMatchObject({
      serialNumber: DEV_TERMINAL_SERIAL,
      thumbprint: id.thumbprint,
      fingerprint256: id.fingerprint256,
      notAfter: id.notAfter.toISOString(),
      state: 'valid',
    });
    expect(facts.daysLeft).toBeGreaterThan(300);
  });

  it('describes an expired certificate but exits non-zero with one error line', async () => {
    const c = testCerts();
    const r = await runCli(
      ['--config', emptyConfig(tmp()), 'certs', 'show', '--json'],
      identityEnv(c.expiredCert, c.expiredKey),
    );
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { state: string }).state).toBe('expired');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('CERT_EXPIRED');
    expect(r.stderr).toContain(c.expiredCert);
  });

  it('one clear line for a missing certificate, a loose key mode or a wrong key', async () => {
    const c = testCerts();
    const dir = tmp();
    const config = emptyConfig(dir);
    const missing = join(dir, 'nope.crt');
    const cases: Array<[Record<string, string>, string, string]> = [
      [identityEnv(missing, c.deviceKey), 'CERT_UNREADABLE', missing],
      [identityEnv(c.deviceCert, keyCopy(c.deviceKey, dir, 0o644)), 'KEY_PERMISSIONS', 'chmod 600'],
      [identityEnv(c.deviceCert, c.unknownKey), 'CERT_KEY_MISMATCH', c.unknownKey],
    ];
    for (const [env, code, text] of cases) {
      const r = await runCli(['--config', config, 'certs', 'show'], env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(code);
      expect(lines[0]).toContain(text);
    }
  });
});
