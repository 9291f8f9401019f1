import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPlatform, type DemoPlatform } from '../../src/sim/platform/server.js';
import { runOfflineChaos } from '../../scripts/chaos/offline/run.js';
import { testCerts } from '../helpers/certs.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { SEED_FILE } from '../helpers/offline-sales.js';
import { testSimProfile } from '../helpers/demo-platform.js';

/**
 * Issue 6, done when: "the agent killed with SIGKILL at random points during a burst of
 * offline sales and uploads, then restarted: every approved offline sale is at the
 * platform exactly once". The child is the compiled scripts/chaos/offline/child.ts.
 */
const SCRIPT = resolve('dist/scripts/chaos/offline/child.js');

/** The compiled child must not be older than what it is built from (else the test would prove old code). */
function staleSources(): string[] {
  if (!existsSync(SCRIPT)) return ['dist/scripts/chaos/offline/child.js is missing'];
  const built = statSync(SCRIPT).mtimeMs;
  const sources = [
    ...readdirSync('src/offline').map((f) => join('src/offline', f)),
    'scripts/chaos/offline/child.ts',
    'scripts/chaos/offline/child-options.ts',
    'scripts/lib/demo-client.ts',
  ];
  return sources.filter((f) => statSync(f).mtimeMs > built);
}

let platform: DemoPlatform;
const tmp = tempDir('offline-kill-');

beforeAll(async () => {
  const certs = testCerts();
  platform = await startDemoPlatform({
    settings: { profile: testSimProfile() },
    apiPort: 0,
    mtlsPort: 0,
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: SEED_FILE,
    log: testLogger('info').log,
  });
});
afterAll(async () => {
  await platform?.stop();
  tmp.cleanup();
});

describe('offline queue under SIGKILL', () => {
  it('puts every approved offline sale at the platform exactly once across kills at random points', async () => {
    const stale = staleSources();
    expect(stale, 'build the child first: npx tsc -p .').toEqual([]);
    const certs = testCerts();
    const seed = Number(process.env.OFFLINE_CHAOS_SEED ?? Date.now() % 1_000_000);
    const result = await runOfflineChaos({
      platform: {
        apiUrl: platform.urls.api,
        mtlsUrl: platform.urls.mtls,
        faults: platform.faults,
        ledger: () => platform.payments.ledger(),
      },
      certs: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
      dataDir: join(tmp.dir, 'data'),
      script: SCRIPT,
      kills: 4,
      salesPerRun: 25,
      seed,
      runTimeoutMs: 25_000,
    });
    const context = `seed ${seed} (OFFLINE_CHAOS_SEED=${seed} repeats it)`;
    expect(
      result.runs.filter((r) => r.killed),
      context,
    ).toHaveLength(4);
    expect(result.approved.size, context).toBeGreaterThan(0);
    expect(result.lost, context).toEqual([]);
    expect(result.duplicated, context).toEqual([]);
    expect(result.wrongAmount, context).toEqual([]);
    expect(result.phantom, context).toEqual([]);
    expect(result.unresolved, context).toEqual([]);
    expect(result.uploaded, context).toBe(result.stored);
    expect(result.stored, context).toBeGreaterThanOrEqual(result.approved.size);
  }, 120_000);
});
