import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDiagnostics, type CheckResult, type DiagReport } from '../../src/diag/index.js';
import type { DemoPlatform } from '../../src/sim/platform/server.js';
import { loadConfig } from '../../src/config/load.js';
import { testCerts } from '../helpers/certs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort, demoPlatform, diagConfig, keyWithMode } from './diag-setup.js';

let platform: DemoPlatform;
let tmp: { dir: string; cleanup: () => void };
let noAgentPort: number;

beforeAll(async () => {
  platform = await demoPlatform();
  tmp = tempDir('terminal-agent-diag-');
  noAgentPort = await closedPort();
});
afterAll(async () => {
  await platform?.stop();
  tmp?.cleanup();
});
afterEach(() => {
  platform.faults.clear();
});

function check(r: DiagReport, id: string): CheckResult {
  const c = r.checks.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no check ${id} in ${r.checks.map((x) => x.id).join(', ')}`);
  return c;
}

async function diag(extra: Parameters<typeof diagConfig>[3] = {}, urls = platform.urls): Promise<DiagReport> {
  const loaded = diagConfig(tmp.dir, urls, noAgentPort, extra);
  return (await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 8_000 })).report;
}

describe('terminal-agent diag checks against the demo platform', () => {
  it('reports every check ok with a good terminal, in order, and nothing failed', async () => {
    const r = await diag();
    expect(r.checks.map((c) => c.id)).toEqual([
      'config',
      'certificate',
      'clock',
      'tls.device-auth',
      'tls.api',
      'token',
      'platform',
      'serial',
      'offline',
      'journal',
      'agent',
    ]);
    for (const id of ['config', 'certificate', 'clock', 'tls.device-auth', 'tls.api', 'token', 'platform', 'offline'])
      expect(check(r, id).status, id).toBe('ok');
    expect(check(r, 'serial').status).toBe('skip');
    expect(check(r, 'agent')).toMatchObject({ status: 'warn', finding: expect.stringContaining('not running') });
    expect(r.ok).toBe(true);

    const cert = check(r, 'certificate');
    expect(cert.finding).toMatch(/TA-0001/);
    expect(cert.facts).toMatchObject({ serialNumber: 'TA-0001', keyMode: '0600', state: 'valid' });
    expect(cert.facts?.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);

    expect(check(r, 'tls.device-auth').facts).toMatchObject({
      protocol: expect.stringMatching(/^TLSv1\.[23]$/),
      chainsToPlatformCa: true,
    });
    expect(check(r, 'tls.api').finding).toMatch(/chains to the platform CA/);

    const token = check(r, 'token');
    expect(token.finding).toMatch(/Demo Coffee \[terminal-app-1001\], Demo Books \[terminal-app-1002\]/);
    expect(token.facts).toMatchObject({
      clientId: 'terminal-app-1001',
      bound: true,
      cnfMatches: true,
      merchantId: 'm-1001',
    });
    expect(token.facts?.expiresInSeconds as number).toBeGreaterThan(200);
    const text = JSON.stringify(r);
    expect(text).not.toContain('demo-secret-1001');
    expect(text).not.toContain('demo-secret-1002');
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]+\./);
  });

  it('fails the certificate check, the TLS handshake with the mTLS host and the token for an expired certificate', async () => {
    const certs = testCerts();
    const r = await diag({ identity: { certFile: certs.expiredCert, keyFile: certs.expiredKey } });
    const cert = check(r, 'certificate');
    expect(cert.status).toBe('fail');
    expect(cert.finding).toMatch(/expired on/);
    expect(cert.remedy).toMatch(/renewed device certificate/);
    expect(check(r, 'tls.device-auth')).toMatchObject({
      status: 'fail',
      finding: expect.stringMatching(/refused the device certificate/),
    });
    expect(check(r, 'token').status).toBe('fail');
    expect(r.ok).toBe(false);
  });

  it('fails the certificate check for a key readable by others, naming chmod 600, and still runs the platform checks', async () => {
    const key = keyWithMode(tmp.dir, 0o644);
    const r = await diag({ identity: { keyFile: key } });
    const cert = check(r, 'certificate');
    expect(cert.status).toBe('fail');
    expect(cert.finding).toMatch(/mode 0644/);
    expect(cert.remedy).toBe(`chmod 600 ${key} (the agent refuses to start until then)`);
    expect(check(r, 'token').status).toBe('ok');
    expect(r.ok).toBe(false);
  });

  it('reports the platform not reachable on every platform check when nothing listens', async () => {
    const port = await closedPort();
    const url = `https://127.0.0.1:${port}`;
    const r = await diag({}, { api: url, mtls: url });
    for (const id of ['clock', 'tls.device-auth', 'tls.api', 'token', 'platform']) {
      expect(check(r, id), id).toMatchObject({
        status: 'fail',
        finding: expect.stringContaining(`not reachable at 127.0.0.1:${port}`),
      });
      expect(check(r, id).remedy, id).toMatch(/network/);
    }
    expect(check(r, 'certificate').status).toBe('ok');
    expect(r.ok).toBe(false);
  });

  it('fails the token check for a terminal the platform does not know, naming the serial number', async () => {
    const certs = testCerts();
    const r = await diag({ identity: { certFile: certs.unknownCert, keyFile: certs.unknownKey } });
    expect(check(r, 'certificate').status).toBe('ok');
    expect(check(r, 'tls.device-auth').status).toBe('ok');
    const token = check(r, 'token');
    expect(token.status).toBe('fail');
    expect(token.facts).toMatchObject({ code: 'AUTH_UNKNOWN_TERMINAL' });
    expect(token.remedy).toMatch(/TA-9999/);
    expect(check(r, 'platform')).toMatchObject({ status: 'fail', finding: expect.stringMatching(/no device token/) });
  });

  it('flags a clock skew beyond the auth leeway from the platform Date header', async () => {
    platform.faults.clockOffsetMs = 120_000;
    const r = await diag();
    const clock = check(r, 'clock');
    expect(clock.status).toBe('fail');
    expect(clock.finding).toMatch(/behind the platform/);
    expect(clock.remedy).toMatch(/NTP/);
    expect(clock.facts?.skewMs as number).toBeGreaterThan(115_000);
  });

  it('with the embedded demo default and no agent running, starts nothing and tells to start the agent or sim', async () => {
    const [apiPort, mtlsPort] = [await closedPort(), await closedPort()];
    const certs = testCerts();
    const loaded = loadConfig({
      cwd: process.cwd(),
      env: {},
      flags: {
        environment: 'local',
        dataDir: tmp.dir,
        identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
        sim: { embedded: true, apiPort, mtlsPort },
        api: { port: noAgentPort },
      },
    });
    const r = (await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 8_000 })).report;
    expect(check(r, 'config').finding).toMatch(/embedded demo platform/);
    for (const id of ['clock', 'tls.device-auth', 'tls.api', 'token', 'platform']) {
      expect(check(r, id).status, id).toBe('fail');
      expect(check(r, id).finding, id).toMatch(/not reachable/);
      expect(check(r, id).remedy, id).toMatch(/terminal-agent start.*terminal-agent sim/);
    }
    expect(check(r, 'serial').status).toBe('skip');
    expect(check(r, 'agent').status).toBe('warn');
  });

  it('reports a configuration that does not load as the first failure and skips the rest', async () => {
    const r = (
      await runDiagnostics({
        loadConfig: () => loadConfig({ cwd: process.cwd(), env: { TERMINAL_AGENT_OFFLINE__MAX_COUNT: 'many' } }),
      })
    ).report;
    expect(check(r, 'config')).toMatchObject({ status: 'fail', finding: expect.stringMatching(/offline\.maxCount/) });
    expect(check(r, 'config').remedy).toBeDefined();
    expect(r.checks.slice(1).every((c) => c.status === 'skip' || c.id === 'agent')).toBe(true);
    expect(r.ok).toBe(false);
  });
});
