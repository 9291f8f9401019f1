import { join } from 'node:path';
import { configSchema } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import type { AgentEvent, AgentEventMap, AgentEventType } from '../../src/events/types.js';
import { createOffline, type Offline, type OfflineDeps } from '../../src/offline/index.js';
import type { OfflineConfig } from '../../src/offline/types.js';
import { Journal } from '../../src/payments/journal/index.js';
import { JournalWriter, offlineSaleReports } from '../../src/payments/index.js';
import type { ProcessRequest } from '../../src/platform/index.js';
import { startDemoPlatform, type DemoPlatform } from '../../src/sim/platform/server.js';
import { createDemoClient, type DemoClient } from '../../scripts/lib/demo-client.js';
import { testCerts } from './certs.js';
import { testLogger, type LogSink } from './log-sink.js';
import { tempDir } from './temp-dir.js';
import { systemClock, type Clock, type Logger } from '../../src/core/index.js';
import { testSimProfile } from './demo-platform.js';

export const SEED_FILE = 'config/demo-seed.json';
/** Card data as a reader would give it (opaque, encrypted); must never reach a log or an export. */
export const ENCRYPTED = 'E7C0FFEE5EC12E7DA7A0000000000000AB12CD34';
export const PINBLOCK = '0123456789ABCDEF';

export function offlineConfig(over: Partial<OfflineConfig> = {}): OfflineConfig {
  return { ...configSchema.parse({}).offline, ...over };
}

export interface SaleSpec {
  id: string;
  amount?: number;
  currency?: string;
  maskedPan?: string;
  merchantId?: string;
  clientDateTime?: string;
  entryMode?: string;
}

export function processBody(s: SaleSpec): ProcessRequest {
  return {
    clientDateTime: s.clientDateTime ?? new Date().toISOString(),
    channel: 'instore',
    clientNewTransactionId: s.id,
    authorizationAmount: { amount: s.amount ?? 1000, currency: s.currency ?? 'EUR' },
    instrument: {
      instrumentType: 'card',
      card: {
        maskedPan: s.maskedPan ?? '476173******0010',
        scheme: 'visa',
        expiry: '2812',
        encryptedData: ENCRYPTED,
        ksn: 'FFFF9876543210E00001',
      },
    },
    entryMode: s.entryMode ?? 'ContactChip',
  };
}

/** What PaymentService does for an offline sale: journal first, then update + enqueue in one transaction. */
export function storeOfflineSale(journal: Journal, offline: Offline, s: SaleSpec): void {
  const body = processBody(s);
  journal.insert({
    clientTransactionId: s.id,
    kind: 'sale',
    method: 'card',
    amount: body.authorizationAmount.amount,
    currency: body.authorizationAmount.currency,
    state: 'in_flight',
    clientDateTime: body.clientDateTime,
    ...(s.merchantId !== undefined ? { merchantId: s.merchantId } : {}),
    entryMode: body.entryMode,
    maskedPan: body.instrument.card?.maskedPan,
    scheme: 'visa',
    cardSecret: { encryptedData: ENCRYPTED, ksn: 'FFFF9876543210E00001', expiry: '2812' },
  });
  const candidate = {
    sale: journal.require(s.id),
    entryMode: body.entryMode ?? 'ContactChip',
    maskedPan: body.instrument.card?.maskedPan ?? '',
    scheme: 'visa',
    offlineApproved: true,
  };
  offline.hook.check(candidate);
  journal.transaction(() => {
    const row = journal.update(s.id, { state: 'offline_stored', offline: true });
    offline.hook.store({ row, body });
  });
}

/** Resolves with the first event of `type` matching `pred` (published from now on). */
export function nextEvent<K extends AgentEventType>(
  bus: EventBus,
  type: K,
  pred: (d: AgentEventMap[K]) => boolean = () => true,
): Promise<AgentEvent<K>> {
  return new Promise((resolve) => {
    const off = bus.on(type, (e) => {
      if (!pred(e.data)) return;
      off();
      resolve(e);
    });
  });
}

export function collect(bus: EventBus): AgentEvent[] {
  const events: AgentEvent[] = [];
  bus.subscribe((e) => events.push(e));
  return events;
}

/** A journal in a temp dir with the offline component, without a platform (policy and queue tests). */
export interface LocalFixture {
  dir: string;
  journal: Journal;
  offline: Offline;
  bus: EventBus;
  log: Logger;
  sink: LogSink;
  events: AgentEvent[];
  clock: { now: number };
  close(): void;
}

export function localFixture(cfg: Partial<OfflineConfig> = {}, platform?: OfflineDeps['platform']): LocalFixture {
  const { dir, cleanup } = tempDir('offline-');
  const { log, sink } = testLogger('debug');
  const clock = { now: Date.parse('2026-03-02T10:00:00Z') };
  // Wall time set by hand (ages, limits); timers stay real.
  const agentClock: Clock = { ...systemClock(), wall: () => clock.now };
  const journal = new Journal({ dataDir: join(dir, 'data'), clock: agentClock });
  const bus = new EventBus();
  const events = collect(bus);
  const offline = createOffline({
    db: journal.db,
    reports: offlineSaleReports(new JournalWriter(journal, bus), log),
    platform: platform ?? {
      isAvailable: async () => false,
      process: () => Promise.reject(new Error('offline')),
      status: () => Promise.reject(new Error('offline')),
    },
    bus,
    log,
    config: offlineConfig(cfg),
    clock: agentClock,
  });
  return {
    dir,
    journal,
    offline,
    bus,
    log,
    sink,
    events,
    clock,
    close() {
      journal.close();
      cleanup();
    },
  };
}

/** The demo platform over real mTLS and one client for it. */
export interface PlatformFixture {
  platform: DemoPlatform;
  client: DemoClient;
  sink: LogSink;
  log: Logger;
  close(): Promise<void>;
}

export async function platformFixture(opts: { headersTimeoutMs?: number } = {}): Promise<PlatformFixture> {
  const certs = testCerts();
  const { log, sink } = testLogger('debug');
  const platform = await startDemoPlatform({
    settings: { profile: testSimProfile() },
    apiPort: 0,
    mtlsPort: 0,
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: SEED_FILE,
    log,
  });
  const client = await createDemoClient({
    apiUrl: platform.urls.api,
    mtlsUrl: platform.urls.mtls,
    certFile: certs.deviceCert,
    keyFile: certs.deviceKey,
    caFile: certs.caCert,
    log,
    ...(opts.headersTimeoutMs !== undefined ? { headersTimeoutMs: opts.headersTimeoutMs } : {}),
    availabilityTimeoutMs: 1_000,
  });
  return {
    platform,
    client,
    sink,
    log,
    async close() {
      await client.close();
      await platform.stop();
    },
  };
}

/** A fresh journal + offline component on the demo platform (each test its own data dir). */
export interface UploadFixture {
  dir: string;
  dataDir: string;
  journal: Journal;
  offline: Offline;
  bus: EventBus;
  events: AgentEvent[];
  /** `payments.lookupGraceMs` the uploader was given. */
  lookupGraceMs: number;
  /** Moves the agent's clocks (wall and monotonic) forward: real time plus what was advanced; timers stay real. */
  advance(ms: number): void;
  /** Steps the agent's wall clock alone (as NTP may), the monotonic clock going on as it was. */
  stepWallClock(ms: number): void;
  /** Reopens journal and offline component on the same files, as after a crash. */
  restart(cfg?: Partial<OfflineConfig>): Promise<void>;
  close(): Promise<void>;
}

export interface UploadFixtureOptions {
  /** `payments.lookupGraceMs` for the uploader (default 2 s). */
  lookupGraceMs?: number;
}

export function uploadFixture(
  p: PlatformFixture,
  cfg: Partial<OfflineConfig> = {},
  opts: UploadFixtureOptions = {},
): UploadFixture {
  const { dir, cleanup } = tempDir('offline-up-');
  const dataDir = join(dir, 'data');
  const bus = new EventBus();
  const events = collect(bus);
  const lookupGraceMs = opts.lookupGraceMs ?? 2_000;
  let advanced = 0;
  let stepped = 0;
  const real = systemClock();
  // The agent's clocks can be moved on by the test (the lookup grace is counted on them); the demo platform's is moved with its clock offset.
  const clock: Clock = { ...real, wall: () => real.wall() + advanced + stepped, mono: () => real.mono() + advanced };
  const build = (c: Partial<OfflineConfig>): { journal: Journal; offline: Offline } => {
    const journal = new Journal({ dataDir, clock });
    const offline = createOffline({
      db: journal.db,
      reports: offlineSaleReports(new JournalWriter(journal, bus), p.log),
      platform: p.client.platform,
      bus,
      log: p.log,
      config: offlineConfig(c),
      clock,
      lookupGraceMs,
      backoff: { baseMs: 5, capMs: 40 },
    });
    return { journal, offline };
  };
  const f: UploadFixture = {
    dir,
    dataDir,
    ...build(cfg),
    bus,
    events,
    lookupGraceMs,
    advance(ms: number) {
      advanced += ms;
    },
    stepWallClock(ms: number) {
      stepped += ms;
    },
    async restart(c = cfg) {
      await f.offline.uploader.stop();
      f.journal.close();
      const next = build(c);
      f.journal = next.journal;
      f.offline = next.offline;
    },
    async close() {
      await f.offline.uploader.stop();
      f.journal.close();
      cleanup();
    },
  };
  return f;
}
