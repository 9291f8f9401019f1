import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import { runDiagnostics, type CheckResult, type DiagReport } from '../../src/diag/index.js';
import type { DemoPlatform } from '../../src/sim/platform/server.js';
import { runCli } from '../helpers/cli.js';
import { call } from '../helpers/http-client.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { demoPlatform, diagConfig } from './diag-setup.js';
import { until } from '../helpers/wait.js';

/**
 * One source of truth for the platform's availability (docs/counter-page.md, "Local API and
 * counter page"): with the platform's isAvailable failing, the running agent's /readyz,
 * /api/v1/status, `terminal-agent status` and `diag` all say offline within seconds, and all
 * say online again once it answers. Waits are generous deadlines, never timed assertions.
 */
describe('platform availability: /readyz, /api/v1/status, status and diag agree', () => {
  let platform: DemoPlatform;
  let agent: RunningAgent;
  let tmp: { dir: string; cleanup: () => void };
  let port: number;

  beforeAll(async () => {
    platform = await demoPlatform();
    tmp = tempDir('terminal-agent-agree-');
    const { config } = diagConfig(tmp.dir, platform.urls, 0, {
      offline: { enabled: false },
      platform: { availabilityIntervalMs: 200, availabilityBackoffCapMs: 400 },
    });
    agent = await startAgent({ config, log: testLogger('info').log });
    await agent.settled;
    port = Number(new URL(agent.url).port);
  }, 60_000);
  afterAll(async () => {
    await agent?.stop();
    await platform?.stop();
    tmp?.cleanup();
  });

  async function diag(): Promise<DiagReport> {
    const loaded = diagConfig(tmp.dir, platform.urls, port);
    return (await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 8_000 })).report;
  }
  function check(r: DiagReport, id: string): CheckResult {
    const c = r.checks.find((x) => x.id === id);
    if (c === undefined) throw new Error(`no check ${id}`);
    return c;
  }
  /** /readyz's status once it is `status` (the watch reaches its view within 20 s). */
  const readyz = (status: number): Promise<number> =>
    until(
      `/readyz ${status}`,
      async () => (await call(agent.url, 'GET', '/readyz')).status,
      (s) => s === status,
      { timeoutMs: 20_000, everyMs: 100 },
    );
  const cli = (args: string[]) => runCli(['--data-dir', tmp.dir, '--api-port', String(port), ...args]);

  it('online: all say so', async () => {
    await readyz(200);
    const status = await cli(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ ready: true, platform: { online: true, state: 'online' } });
    const r = await diag();
    expect(check(r, 'platform').status).toBe('ok');
    expect(check(r, 'agent')).toMatchObject({ status: 'ok', finding: expect.stringContaining('platform online') });
  });

  it('platform faulted: /readyz 503 (offline sales not allowed), /api/v1/status, status and diag say offline; back online after', async () => {
    platform.faults.set('isAvailable', { drop: 'before' });
    await readyz(503);
    const ready = await call(agent.url, 'GET', '/readyz');
    expect(ready.json).toMatchObject({
      ready: false,
      checks: {
        platform: {
          ok: false,
          detail: expect.stringMatching(/platform unreachable \(.+\) and offline sales not allowed/),
        },
      },
    });

    const status = await cli(['status']);
    expect(status.stdout).toMatch(/agent NOT READY/);
    expect(status.stdout).toMatch(/FAIL platform/);
    expect(status.stdout).toMatch(/platform {2}offline: the /);
    expect(status.stdout).not.toMatch(/127\.0\.0\.1:\d+|ECONN/);

    const r = await diag();
    expect(check(r, 'platform').status).toBe('fail');
    // The agent's view agrees with diag's own check: no disagreement warning, its finding names the outage.
    expect(check(r, 'agent').finding).toMatch(/platform offline \(the /);
    expect(check(r, 'agent').finding).not.toMatch(/diag's own check/);

    platform.faults.clear();
    await readyz(200);
    const back = await cli(['status', '--json']);
    expect(JSON.parse(back.stdout)).toMatchObject({ platform: { online: true } });
  });

  it('diag warns when the agent still says online while its own check finds the platform down (a stuck watch)', async () => {
    // The watch stops checking and last heard an answer: it would say online through the outage.
    agent.platformWatch.stop();
    agent.platformWatch.answered();
    platform.faults.set('isAvailable', { drop: 'before' });
    try {
      const r = await diag();
      expect(check(r, 'platform').status).toBe('fail');
      expect(check(r, 'agent')).toMatchObject({
        status: 'warn',
        finding: expect.stringMatching(/platform online; but diag's own check found the platform not available/),
      });
    } finally {
      platform.faults.clear();
    }
  });
});
