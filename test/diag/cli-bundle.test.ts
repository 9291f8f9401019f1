import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import type { DiagBundle, DiagReport } from '../../src/diag/index.js';
import type { DemoPlatform } from '../../src/sim/platform/server.js';
import { testCerts } from '../helpers/certs.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort, demoPlatform, diagConfig } from './diag-setup.js';
import { runCli } from '../helpers/cli.js';

const run = runCli;

const seed = JSON.parse(readFileSync('config/demo-seed.json', 'utf8')) as {
  signingKeyHex: string;
  merchants: Array<{ clientSecret: string }>;
  users: Array<{ password: string }>;
  applications: Array<{ clientSecret: string }>;
};

let platform: DemoPlatform;
let agent: RunningAgent;
let tmp: { dir: string; cleanup: () => void };
let configFile: string;

function writeConfig(name: string, content: Record<string, unknown>): string {
  const file = join(tmp.dir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

beforeAll(async () => {
  tmp = tempDir('terminal-agent-diag-cli-');
  platform = await demoPlatform();
  const loaded = diagConfig(tmp.dir, platform.urls, 0);
  agent = await startAgent({ config: loaded.config, log: testLogger().log });
  await agent.settled;
  const certs = testCerts();
  configFile = writeConfig('agent.json', {
    environment: 'local',
    dataDir: tmp.dir,
    identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
    platform: { baseUrl: platform.urls.api, authUrl: platform.urls.api, deviceAuthUrl: platform.urls.mtls },
    api: { port: Number(new URL(agent.url).port) },
    devices: { simulate: true },
    sim: { embedded: false },
  });
});
afterAll(async () => {
  await agent?.stop();
  await platform?.stop();
  tmp?.cleanup();
});

describe('terminal-agent diag (CLI) with the agent running', () => {
  it('--json prints the report only, every check ok, devices from the running agent, exit 0', async () => {
    const r = await run(['--config', configFile, 'diag', '--json']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as DiagReport;
    expect(report).toMatchObject({
      ok: true,
      startedAt: expect.any(String),
      durationMs: expect.any(Number),
      counts: { fail: 0 },
    });
    for (const c of report.checks) {
      expect(Object.keys(c).sort()).toEqual(expect.arrayContaining(['id', 'title', 'status', 'finding', 'durationMs']));
      expect(['ok', 'warn', 'skip'], `${c.id}: ${c.finding}`).toContain(c.status);
    }
    const byId = new Map(report.checks.map((c) => [c.id, c]));
    expect(byId.get('serial.reader')).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining('connected to the running agent'),
    });
    expect(byId.get('agent')).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining('ready'),
      facts: { running: true },
    });
    expect(r.code).toBe(0);
  });

  it('prints one line per check and exits 1 when a check fails (platform down)', async () => {
    const port = await closedPort();
    const r = await run([
      '--config',
      configFile,
      'diag',
      '--base-url',
      `https://127.0.0.1:${port}`,
      '--timeout',
      '5000',
    ]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ok {4}config /);
    const clock = lines.find((l) => l.includes(' clock '));
    expect(clock).toMatch(/^FAIL {2}clock +platform not reachable at 127\.0\.0\.1:\d+ .* -> check the network/);
    expect(lines.at(-1)).toMatch(/failed: \d+ ok/);
  });
});

describe('terminal-agent diag bundle', () => {
  it('writes one 0600 JSON file with every check, redacted config, certificate facts, versions, ports, offline, agent status and a scrubbed log tail, and no secret', async () => {
    const certs = testCerts();
    const accessToken = await agent.auth.tokenFor();
    const keyPem = readFileSync(certs.deviceKey, 'utf8');
    const keyLine = keyPem.split('\n').find((l) => /^[A-Za-z0-9+/=]{40,}$/.test(l)) as string;
    expect(keyLine).toBeDefined();
    const logFile = join(tmp.dir, 'agent.log');
    const entries = [
      JSON.stringify({ level: 30, time: 1764109000000, msg: 'token granted', accessToken, note: `raw ${accessToken}` }),
      JSON.stringify({
        level: 30,
        time: 1764109000001,
        msg: 'merchants',
        merchants: [{ clientId: 'terminal-app-1001', clientSecret: seed.merchants[0]?.clientSecret }],
      }),
      `plain line client_secret=${seed.merchants[1]?.clientSecret} password: ${seed.users[0]?.password} Authorization: Bearer ${accessToken}`,
      `signing key ${seed.signingKeyHex}`,
      keyPem.trim(),
      JSON.stringify({
        level: 30,
        time: 1764109000002,
        msg: 'sale approved',
        maskedPan: '476173******0010',
        pan: '4761739001010010',
      }),
      'card 4761 7390 0101 0010 seen',
      'last line stays readable',
    ];
    const leaky = entries.join('\n');
    writeFileSync(logFile, `${leaky}\n`);

    // The unit's journal comes from a fake journalctl on PATH that leaks the same secrets.
    const fakeBin = join(tmp.dir, 'fake-bin');
    mkdirSync(fakeBin, { recursive: true });
    const journalLine = JSON.stringify({
      __REALTIME_TIMESTAMP: '1764109000000000',
      PRIORITY: '6',
      _PID: '77',
      SYSLOG_IDENTIFIER: 'terminal-agent',
      MESSAGE: entries[0],
    });
    writeFileSync(join(fakeBin, 'journalctl'), `#!/bin/sh\ncat <<'EOF'\n${journalLine}\nEOF\n`, { mode: 0o755 });
    const out = join(tmp.dir, 'bundle.json');
    const savedPath = process.env.PATH;
    process.env.PATH = `${fakeBin}:${savedPath ?? ''}`;
    let r;
    try {
      r = await run(['--config', configFile, 'diag', 'bundle', '--out', out, '--log', logFile, '--lines', '200']);
    } finally {
      process.env.PATH = savedPath;
    }
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(out);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const text = readFileSync(out, 'utf8');
    const bundle = JSON.parse(text) as DiagBundle;

    expect(bundle.kind).toBe('terminal-agent-diagnostics');
    expect(bundle.report.checks.map((c) => c.id)).toContain('token');
    expect(bundle.versions).toMatchObject({ node: process.version, agent: expect.any(String) });
    expect(bundle.config).toMatchObject({
      file: configFile,
      effective: { environment: 'local', identity: { certFile: certs.deviceCert } },
    });
    expect(bundle.certificate).toMatchObject({
      serialNumber: 'TA-0001',
      keyMode: '0600',
      thumbprint: agent.identity.thumbprint,
    });
    expect(bundle.agent).toMatchObject({ running: true, status: { ready: true } });
    expect(bundle.offline).toMatchObject({ count: 0, needsAttention: 0 });
    expect(Array.isArray(bundle.serialPorts)).toBe(true);
    const log = bundle.log as { lines: string[] };
    // The key's PEM block becomes one line.
    expect(log.lines).toHaveLength(entries.length);
    expect(log.lines[4]).toBe('[redacted-pem]');
    expect(log.lines.at(-1)).toBe('last line stays readable');
    expect(JSON.parse(log.lines[0] as string)).toMatchObject({
      time: 1764109000000,
      msg: 'token granted',
      accessToken: '[redacted]',
    });
    expect(log.lines.join('\n')).toContain('476173******0010');
    expect(bundle.journal).toMatchObject({
      unit: 'terminal-agent',
      available: true,
      note: null,
      entries: [{ priority: 6, pid: 77, identifier: 'terminal-agent' }],
    });
    expect(JSON.parse(bundle.journal.entries[0]?.message ?? '')).toMatchObject({
      msg: 'token granted',
      accessToken: '[redacted]',
    });

    for (const secret of [
      accessToken,
      accessToken.split('.')[2] as string,
      ...seed.merchants.map((m) => m.clientSecret),
      ...seed.users.map((u) => u.password),
      seed.signingKeyHex,
      keyLine,
      'PRIVATE KEY',
      agent.localToken,
      '4761739001010010',
      '4761 7390 0101 0010',
    ]) {
      expect(text, secret.slice(0, 12)).not.toContain(secret);
    }
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\./);
  });
});
