import { join } from 'node:path';
import { AuthService } from '../../src/auth/index.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { systemClock, type Logger } from '../../src/core/index.js';
import { EventBus } from '../../src/events/bus.js';
import { createEventRelay, type EventRelay } from '../../src/payments/relay/relay.js';
import type { AgentEvent } from '../../src/events/types.js';
import { HostDispatchers } from '../../src/platform/dispatchers.js';
import { PlatformClient } from '../../src/platform/client.js';
import { createMtlsDispatcher } from '../../src/identity/index.js';
import { Journal } from '../../src/payments/journal/index.js';
import type { OfflineHook } from '../../src/payments/offline-hook.js';
import { PaymentService } from '../../src/payments/service.js';
import type { PaymentsPlatform, TransactionView } from '../../src/payments/index.js';
import type { StatFs } from '../../src/payments/free-space.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { identityOf, startDemo, testPlatformTimeZone, testSimProfile, type Demo } from './demo-platform.js';
import { tempDir } from './temp-dir.js';
import { fakePeripherals } from './fake-peripherals.js';

/**
 * The lookup grace of a test terminal: short, but past the strict platform's completion of a
 * refund or cancel it answered pending (about 300 ms), so a lost answer's lookup can see it.
 */
const STRICT_AWARE_GRACE_MS = testSimProfile() === 'strict' ? 1_000 : 300;

export interface Terminal {
  service: PaymentService;
  journal: Journal;
  bus: EventBus;
  events: AgentEvent[];
  devices: ReturnType<typeof fakePeripherals>;
  platform: PaymentsPlatform;
  /** The configuration, its platform zone always named (the run's: testPlatformTimeZone, unless the test names one). */
  config: Config & { platform: { timeZone: string } };
  dataDir: string;
  /** Closes service, journal and client (not the demo platform). */
  close(): Promise<void>;
}

export interface TerminalOptions {
  config?: Record<string, unknown>;
  now?: () => number;
  offline?: OfflineHook;
  /** Time to response headers of platform calls (timeouts of the unknown-outcome tests). */
  headersTimeoutMs?: number;
  dataDir?: string;
  /** Wraps the platform client (e.g. to count calls). */
  wrap?: (p: PaymentsPlatform) => PaymentsPlatform;
  log?: Logger;
  /** Payment API base URL (default: the demo platform's mTLS listener). */
  baseUrl?: string;
  /** Free space of the data directory as the free-space guard reads it. */
  statfs?: StatFs;
}

/** The demo platform on loopback (mTLS), shared by the tests of a file. */
export async function startPlatform(): Promise<Demo> {
  return startDemo({ walletPayDelayMs: 0 });
}

export interface DemoPlatformFixture {
  /** The demo platform of this test file (started before its first test). */
  readonly demo: Demo;
  /** A terminal on the demo platform for the running test; closed after it. */
  startTerminal(opts?: TerminalOptions): Promise<Terminal>;
  /**
   * The operation once final: a refund or cancel the platform answered pending (the strict
   * profile) is completed at the platform now and refreshed through the status call, as the
   * event relay would; any other view comes back as it is.
   */
  final(terminal: Terminal, view: TransactionView): Promise<TransactionView>;
}

/**
 * A demo platform (and terminals on it) for this test file: registers the hooks that start
 * the platform before the first test and stop it after the last, and after each test close
 * the terminals it started and clear the faults it was given. Call at the top of the file,
 * before the file's own hooks (those then run first after each test, e.g. stopping a relay
 * before its terminal closes).
 */
export function useDemoPlatform(opts: { beforeStart?: () => void; startTimeoutMs?: number } = {}): DemoPlatformFixture {
  let demo: Demo | undefined;
  const terminals: Terminal[] = [];
  beforeAll(async () => {
    opts.beforeStart?.();
    demo = await startPlatform();
  }, opts.startTimeoutMs);
  afterAll(async () => {
    await demo?.close();
  });
  afterEach(async () => {
    while (terminals.length > 0) await terminals.pop()?.close();
    demo?.platform.faults.clear();
  });
  const started = (): Demo => {
    if (demo === undefined) throw new Error('the demo platform is started in beforeAll: use it inside a test');
    return demo;
  };
  return {
    get demo() {
      return started();
    },
    async startTerminal(terminalOpts) {
      const t = await startTerminal(started(), terminalOpts);
      terminals.push(t);
      return t;
    },
    async final(terminal, view) {
      let current = view;
      for (let i = 0; i < 5 && current.state === 'pending'; i++) {
        started().platform.payments.complete(current.serverTransactionId ?? current.clientTransactionId);
        current = await terminal.service.get(current.clientTransactionId, { refresh: true });
      }
      return current;
    },
  };
}

/**
 * A payments service as the agent builds it: AuthService tokens for TA-0001, the
 * PlatformClient over mTLS to the demo platform, a real journal in a temp dir, fake devices.
 */
export async function startTerminal(demo: Demo, opts: TerminalOptions = {}): Promise<Terminal> {
  const tmp = opts.dataDir === undefined ? tempDir('payments-') : undefined;
  const dataDir = opts.dataDir ?? join(tmp?.dir ?? '', 'data');
  const parsed = configSchema.parse({
    dataDir,
    ...opts.config,
    // Server times are read in the zone the run's demo platform writes them in.
    platform: { timeZone: testPlatformTimeZone(), ...(opts.config?.platform as Record<string, unknown> | undefined) },
    payments: {
      reversalRetryCapMs: 200,
      lookupGraceMs: STRICT_AWARE_GRACE_MS,
      ...(opts.config?.payments as Record<string, unknown> | undefined),
    },
  });
  const platformZone = parsed.platform.timeZone ?? testPlatformTimeZone();
  const config = { ...parsed, platform: { ...parsed.platform, timeZone: platformZone } };
  const identity = identityOf('device');
  const timeouts = { connectTimeoutMs: 2_000, headersTimeoutMs: opts.headersTimeoutMs ?? 5_000, bodyTimeoutMs: 5_000 };
  const dispatchers = new HostDispatchers(() => createMtlsDispatcher(identity, timeouts));
  const log = opts.log ?? demo.log;
  const auth = new AuthService({
    identity,
    endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
    dispatchers,
    settings: {
      mode: 'client_credentials',
      refreshRatio: 0.8,
      leewaySeconds: 30,
      backoffBaseMs: 20,
      backoffCapMs: 200,
    },
    log,
    random: () => 0.5,
  });
  await auth.start();
  const client = new PlatformClient({
    baseUrl: opts.baseUrl ?? demo.mtlsUrl,
    dispatchers,
    tokens: auth,
    log,
    headersTimeoutMs: timeouts.headersTimeoutMs,
    getRetry: { retries: 1, backoff: { baseMs: 10, capMs: 20 } },
  });
  const platform = opts.wrap ? opts.wrap(client) : client;
  // Wall time from the test when it drives it (operation windows); timers and the monotonic clock stay real.
  const clock = opts.now !== undefined ? { ...systemClock(), wall: opts.now } : systemClock();
  const journal = new Journal({ dataDir, clock, log });
  const bus = new EventBus();
  const events: AgentEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const devices = fakePeripherals();
  const service = new PaymentService({
    journal,
    platform,
    peripherals: devices,
    bus,
    log,
    config,
    retryBaseMs: 10,
    random: () => 0.5,
    clock,
    merchantCheck: async (merchantId) => {
      await auth.tokenFor(merchantId);
    },
    merchantNames: (merchantId) => auth.merchantNames(merchantId),
    ...(opts.statfs ? { statfs: opts.statfs } : {}),
    ...(opts.offline ? { offline: opts.offline } : {}),
  });
  let closing: Promise<void> | undefined;
  return {
    service,
    journal,
    bus,
    events,
    devices,
    platform,
    config,
    dataDir,
    // Once: a test may close its terminal itself (a restart) before the fixture does.
    close: () =>
      (closing ??= (async () => {
        await service.stop();
        journal.close();
        auth.stop();
        await dispatchers.close();
        tmp?.cleanup();
      })()),
  };
}

/**
 * The event relay as the agent wires it, over the terminal's own service and platform
 * client, polling every 50 ms while fast; started. The caller stops it.
 */
export function startTerminalRelay(t: Terminal, log: Logger): EventRelay {
  const relay = createEventRelay({
    store: t.service,
    fetchStatus: (id, merchantId) => t.platform.status(id, merchantId !== undefined ? { merchantId } : {}),
    log,
    policy: { fastIntervalMs: 50 },
    timeZone: t.config.platform.timeZone,
  });
  relay.start();
  return relay;
}
