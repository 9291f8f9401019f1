import { afterEach, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent.js';
import { loadConfig } from '../../src/config/load.js';
import { testCerts } from '../helpers/certs.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';
import { untilTrue } from '../helpers/wait.js';

/*
 * The zone of the platform's server times has no default (docs/platform-contract.md,
 * "Tolerance of answers", dates and time zone): `npm start` on the embedded demo platform
 * takes the zone that platform writes in. Its strict profile writes zone-less 12-hour times
 * in Los Angeles; read as UTC, every QR would look expired hours ago at the first status call.
 */
let agent: RunningAgent | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  cleanup?.();
});

describe("the platform's time zone on the embedded demo platform", () => {
  it("with no platform.timeZone, the strict demo platform's zone-less times west of UTC are read in its own zone: the QR is not expired at the first status calls", async () => {
    const certs = testCerts();
    const tmp = tempDir('zone-');
    cleanup = tmp.cleanup;
    const { config } = loadConfig({
      cwd: process.cwd(),
      env: {},
      flags: {
        dataDir: tmp.dir,
        identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
        api: { port: 0 },
        sim: { apiPort: 0, mtlsPort: 0, profile: 'strict', walletPayDelayMs: 0 },
      },
    });
    expect(config.platform.timeZone).toBeUndefined();
    const { log, sink } = testLogger('debug');
    agent = await startAgent({ config, log });
    await agent.settled;
    const started = await agent.payments.startSale({
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 1_500,
      currency: 'EUR',
    });
    const statusCalls = (): number =>
      sink.records().filter((r) => r.msg === 'platform call' && r.operation === 'status').length;
    await untilTrue('three status calls', () => statusCalls() >= 3, { timeoutMs: 15_000 });
    const view = await agent.payments.get(started.clientTransactionId);
    expect(view).toMatchObject({ state: 'awaiting_customer', platformStatus: 'Initialized' });
    expect(view.qr?.expireTime).toMatch(/^\d{1,2}\/\d{1,2}\/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M$/);
    // No warning about a zone the configuration did not name.
    expect(sink.records().filter((r) => typeof r.msg === 'string' && r.msg.includes('set platform.timeZone'))).toEqual(
      [],
    );
  });
});
