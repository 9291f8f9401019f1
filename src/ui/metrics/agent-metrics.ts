import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { OpenMetricsContentType, Registry } from 'prom-client';
import type { TimeSource } from '../../core/index.js';

/**
 * prom-client's registry and the three metric types the agent uses, from prom-client's own
 * files instead of its index: the index also loads its push gateway, cluster aggregation and
 * default process metrics, and with them node's cluster, dgram, perf_hooks, v8, zlib and
 * OpenTelemetry's API (about 2 MiB at idle: docs/architecture.md, "Memory"). The files are
 * those the index requires, so the classes are the same.
 */
const load = createRequire(import.meta.url);
const PromRegistry = load('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = load('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = load('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = load('prom-client/lib/histogram') as typeof PromClient.Histogram;
import type { DeviceStatusView, HealthSource, OfflineApiSource } from '../sources.js';

/** Figures the local API cannot read from its other sources; the composition root adapts auth and identity to it. */
export interface MetricsSource {
  /** The device certificate's end of validity. */
  certificateNotAfter?(): Date;
  /** Each merchant's device token: a merchant label (platform merchant id, else client id) and its expiry, when one is held. */
  tokens?(): Array<{ merchant: string; expiresAt?: string }>;
}

export interface AgentMetricsOptions {
  health: HealthSource;
  offline: OfflineApiSource | undefined;
  devices: () => DeviceStatusView[];
  source?: MetricsSource;
  clock: TimeSource;
}

/** What the routes report as it happens; the rest is read at scrape time. */
export interface AgentMetrics {
  readonly registry: Registry<OpenMetricsContentType>;
  /** A sale the API started has its outcome (the journal state it settled in) after `seconds`. */
  saleSettled(outcome: string, method: string, seconds: number): void;
  /** A journal (SQLite) write failed under a request. */
  journalWriteError(): void;
}

const DEVICE_STATES = ['connected', 'disconnected', 'reconnecting', 'disabled', 'unknown'] as const;
const DAY_MS = 86_400_000;
/** Card sales settle in seconds, wallet sales wait for the customer up to minutes (docs/operations.md, "Metrics"). */
const SALE_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/**
 * The figures a fleet watches (docs/operations.md, "Metrics"), in prom-client's registry
 * and served as OpenMetrics text. Levels are read from the sources when scraped, so a
 * figure is never staler than the scrape; sales are counted as they settle. No figure or
 * label carries card data, tokens or secrets: merchant ids and device names only.
 */
export function createAgentMetrics(opts: AgentMetricsOptions): AgentMetrics {
  const registry = new PromRegistry<OpenMetricsContentType>();
  registry.setContentType(PromRegistry.OPENMETRICS_CONTENT_TYPE);
  const registers = [registry];
  const wallSeconds = (): number => opts.clock.wall() / 1000;

  new Gauge({
    name: 'terminal_agent_offline_queue_depth',
    help: 'Offline card sales stored and not yet uploaded.',
    registers,
    async collect() {
      this.set(opts.offline ? (await opts.offline.levels()).count : 0);
    },
  });
  new Gauge({
    name: 'terminal_agent_offline_oldest_age_seconds',
    help: 'Age of the oldest offline sale still waiting for upload (0 when none).',
    registers,
    async collect() {
      const waiting = (await opts.offline?.items?.(['queued', 'uploading'])) ?? [];
      const oldest = waiting.reduce<number | undefined>((min, item) => {
        const t = Date.parse(item.storedAt);
        return Number.isNaN(t) ? min : Math.min(min ?? t, t);
      }, undefined);
      this.set(oldest === undefined ? 0 : Math.max(0, wallSeconds() - oldest / 1000));
    },
  });
  new Gauge({
    name: 'terminal_agent_certificate_days_left',
    help: 'Days until the device certificate expires (negative once expired).',
    registers,
    collect() {
      const notAfter = opts.source?.certificateNotAfter?.();
      if (notAfter !== undefined) this.set(Math.floor((notAfter.getTime() - opts.clock.wall()) / DAY_MS));
    },
  });
  new Gauge({
    name: 'terminal_agent_token_expiry_seconds',
    help: 'Seconds until each merchant\'s device access token expires (local-clock estimate).',
    labelNames: ['merchant'],
    registers,
    collect() {
      this.reset();
      for (const t of opts.source?.tokens?.() ?? []) {
        const at = t.expiresAt !== undefined ? Date.parse(t.expiresAt) : NaN;
        if (!Number.isNaN(at)) this.set({ merchant: t.merchant }, Math.round(at / 1000 - wallSeconds()));
      }
    },
  });
  new Gauge({
    name: 'terminal_agent_device_state',
    help: 'Each peripheral\'s connection state: 1 for the current state, 0 for the others.',
    labelNames: ['device', 'state'],
    registers,
    collect() {
      this.reset();
      for (const d of opts.devices()) {
        for (const s of DEVICE_STATES) this.set({ device: d.device, state: s }, d.state === s ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'terminal_agent_platform_available',
    help: '1 when the payment platform answered recently, else 0.',
    registers,
    collect() {
      let up = false;
      try {
        up = opts.health.platformReachable();
      } catch {
        up = false;
      }
      this.set(up ? 1 : 0);
    },
  });
  const sales = new Counter({
    name: 'terminal_agent_sales',
    help: 'Sales started through the local API, by the state they settled in (approved, declined, failed, offline_stored, ...).',
    labelNames: ['outcome'],
    registers,
  });
  const latency = new Histogram({
    name: 'terminal_agent_sale_duration_seconds',
    help: 'Time from a sale\'s request to its outcome, by payment method.',
    labelNames: ['method'],
    buckets: SALE_BUCKETS,
    registers,
  });
  const journalErrors = new Counter({
    name: 'terminal_agent_journal_write_errors',
    help: 'Journal (SQLite) writes that failed under a local API request.',
    registers,
  });
  // No collectDefaultMetrics: prom-client 15 writes an event loop lag without samples as
  // `Nan`, which OpenMetrics does not allow (it spells NaN), and a strict scraper drops
  // the whole scrape; the host's own exporter has the process figures.

  return {
    registry,
    saleSettled(outcome, method, seconds) {
      sales.inc({ outcome });
      latency.observe({ method }, seconds);
    },
    journalWriteError() {
      journalErrors.inc();
    },
  };
}

/** True when `err` or one of its causes is an SQLite error (better-sqlite3 codes start with SQLITE_). */
export function isSqliteError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return true;
  }
  return false;
}
