import { request, type Agent } from 'undici';
import { startDemoPlatform, type DemoPlatform } from '../../src/sim/platform/server.js';
import { isSimProfileName, STRICT_TIME_ZONE, type SimProfileName } from '../../src/sim/platform/profile.js';
import type { SimSettings } from '../../src/sim/platform/context.js';
import { createMtlsDispatcher, loadIdentity, readIdentity, type DeviceIdentity } from '../../src/identity/index.js';
import { HostDispatchers } from '../../src/platform/dispatchers.js';
import type { Logger } from '../../src/core/logger.js';
import { testCerts } from './certs.js';
import { testLogger, type LogSink } from './log-sink.js';

export const SEED_FILE = 'config/demo-seed.json';

export interface Demo {
  platform: DemoPlatform;
  log: Logger;
  sink: LogSink;
  /** Security host + payment API. */
  apiUrl: string;
  /** Device token endpoint (mTLS required). */
  mtlsUrl: string;
  /** For control calls: trusts the platform CA. */
  controlDispatcher: Agent;
  close(): Promise<void>;
}

/**
 * The demo platform's answering profile for this run: TEST_SIM_PROFILE=strict makes every
 * fixture start it in the strict profile (docs/demo-platform.md, "Demo platform"), so the
 * same tests see the contract's extremes; `npm test` runs the suites that talk to the
 * platform once in each.
 */
export function testSimProfile(): SimProfileName {
  const wanted = process.env.TEST_SIM_PROFILE;
  if (wanted === undefined || wanted === '') return 'standard';
  if (!isSimProfileName(wanted)) throw new Error(`TEST_SIM_PROFILE must be standard or strict, not ${wanted}`);
  return wanted;
}

/**
 * The time zone the run's demo platform writes server times in, for the terminal's
 * `platform.timeZone`: the strict profile writes them in STRICT_TIME_ZONE
 * (docs/demo-platform.md, "Demo platform"), the standard one in UTC. A test that switches
 * the profile itself configures its terminal with the zone itself.
 */
export function testPlatformTimeZone(): string {
  return testSimProfile() === 'strict' ? STRICT_TIME_ZONE : 'UTC';
}

/**
 * The status the run's demo platform gives an immediate-capture merchant's card sale
 * (m-1001): `Captured`, or `Accepted` with the capture in its event under the strict profile
 * (docs/demo-platform.md, "Demo platform", strict profile, operations).
 */
export function immediateCaptureStatus(): 'Captured' | 'Accepted' {
  return testSimProfile() === 'strict' ? 'Accepted' : 'Captured';
}

/** The demo platform on loopback, port 0, with the dev certificates of this test run, in the run's profile unless told. */
export async function startDemo(settings?: Partial<SimSettings>): Promise<Demo> {
  const certs = testCerts();
  const { log, sink } = testLogger('debug');
  const platform = await startDemoPlatform({
    apiPort: 0,
    mtlsPort: 0,
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: SEED_FILE,
    log,
    settings: { profile: testSimProfile(), ...settings },
  });
  const controlDispatcher = createMtlsDispatcher(identityOf('device'), shortTimeouts);
  return {
    platform,
    log,
    sink,
    apiUrl: platform.urls.api,
    mtlsUrl: platform.urls.mtls,
    controlDispatcher,
    async close() {
      await controlDispatcher.close();
      await platform.stop();
    },
  };
}

export type Who = 'device' | 'unknown' | 'expired' | 'foreign';

/** A device identity from the dev PKI; the expired one is read without the validity check. */
export function identityOf(who: Who): DeviceIdentity {
  const c = testCerts();
  const files = {
    device: [c.deviceCert, c.deviceKey],
    unknown: [c.unknownCert, c.unknownKey],
    expired: [c.expiredCert, c.expiredKey],
    foreign: [c.foreignCert, c.foreignKey],
  }[who] as [string, string];
  const opts = { certFile: files[0], keyFile: files[1], caFile: c.caCert };
  return who === 'expired' ? readIdentity(opts) : loadIdentity(opts);
}

export const shortTimeouts = { connectTimeoutMs: 2_000, headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000 };

/** One mTLS dispatcher per host, as the agent builds them. */
export function dispatchersOf(identity: DeviceIdentity, timeouts = shortTimeouts): HostDispatchers {
  return new HostDispatchers(() => createMtlsDispatcher(identity, timeouts));
}

/** Control routes of the demo platform. */
export async function control(demo: Demo, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const res = await request(`${demo.apiUrl}${path}`, { method, dispatcher: demo.controlDispatcher });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`control ${path}: ${res.statusCode} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export interface GrantStatsBody {
  granted: Record<string, number>;
  refused: Record<string, number>;
}

export async function grantStats(demo: Demo): Promise<GrantStatsBody> {
  return (await control(demo, 'GET', '/sim/control/auth/stats')) as GrantStatsBody;
}

/**
 * The demo platform started again where `gone` listened (its ports), with the seed's users
 * and keys: a platform that comes back after an outage (tokens signed before still verify).
 */
export function reviveDemoPlatform(gone: Pick<DemoPlatform, 'urls'>): Promise<DemoPlatform> {
  const certs = testCerts();
  return startDemoPlatform({
    settings: { profile: testSimProfile() },
    apiPort: Number(new URL(gone.urls.api).port),
    mtlsPort: Number(new URL(gone.urls.mtls).port),
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: SEED_FILE,
    log: testLogger('info').log,
  });
}
