import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { OpenMetricsContentType, Registry } from 'prom-client';
import type { TimeSource } from '../../core/index.js';

/**
 * prom-client's registry and the three metric types the agent uses, from prom-client's own
 * files instead of its index: the index also loads its push gateway, cluster aggregation and
 * default process metrics, and with them node's cluster, dgram, perf_hooks, v8, zlib and
 * OpenTelemetry's API (about 2 MiB at idle: docs/performance.md, "Memory"). The files are
 * those the index requires, so the classes are the same.
 */
const load = createRequire(import.meta.url);
const PromRegistry = load('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = load('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = load('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = load('prom-client/lib/histogram') as typeof PromClient.Histogram;
import type { DeviceStatusView, HealthSource, OfflineApiSource } from '../shared/index.js';

/** Figures the local API cannot read from its other sources; the composition root adapts auth and identity to it. */
export interface MetricsSource {
  /** The device certificate's end of validity. */
  certificateNotAfter?(): Date;
  /** Each merchant's device token: a merchant label (platform merchant id, else client id) and its expiry, when one is held. */
  tokens?(): Array<{ merchant: string; expiresAt?: string }>;
  /** What a fleet groups terminals by: the agent's version, the terminal's serial number, the environment. */
  info?: { version: string; serialNumber: string; environment: string };
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
  /** The same figures as OpenMetrics 1.0 text. */
  readonly registry: Registry<OpenMetricsContentType>;
  /** ... and as Prometheus text 0.0.4, for a scraper that asks for it (promtool, node exporter's textfile collector). */
  readonly textRegistry: Registry;
  /** A sale the API started has its outcome (the journal state it settled in) after `seconds`. */
  saleSettled(outcome: string, method: string, seconds: number): void;
  /** A journal (SQLite) write failed under a request. */
  journalWriteError(): void;
}

const DEVICE_STATES = ['connected', 'disconnected', 'reconnecting', 'disabled', 'unknown'] as const;
/**
 * A contactless tap settles in a fraction of a second to a few, a chip and PIN sale in a few
 * to twenty, a wallet sale waits for the customer up to minutes (docs/operations.md, "Metrics").
 */
const SALE_BUCKETS = [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 8, 13, 20, 30, 60, 120, 300];

/**
 * The figures a fleet watches (docs/operations.md, "Metrics"), in prom-client's registry
 * and served as OpenMetrics text. Levels are read from the sources when scraped, so a
 * figure is never staler than the scrape; sales are counted as they settle. No figure or
 * label carries card data, tokens or secrets: merchant ids and device names only.
 */
export function createAgentMetrics(opts: AgentMetricsOptions): AgentMetrics {
  const registry = new PromRegistry<OpenMetricsContentType>();
  registry.setContentType(PromRegistry.OPENMETRICS_CONTENT_TYPE);
  const textRegistry = new PromRegistry();
  // Every figure in both: each scrape collects only the registry it reads.
  const registers = [registry, textRegistry];
  const wallSeconds = (): number => opts.clock.wall() / 1000;

  const info = opts.source?.info;
  if (info !== undefined) {
    new Gauge({
      name: 'terminal_agent_info',
      help: "The agent's version, the terminal's serial number and environment, and the Node.js version (always 1).",
      labelNames: ['version', 'serial_number', 'environment', 'node_version'],
      registers,
    }).set(
      {
        version: info.version,
        serial_number: info.serialNumber,
        environment: info.environment,
        node_version: process.versions.node,
      },
      1,
    );
  }

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
    name: 'terminal_agent_certificate_expiry_seconds',
    help: 'Seconds until the device certificate expires (negative once expired).',
    registers,
    collect() {
      const notAfter = opts.source?.certificateNotAfter?.();
      if (notAfter !== undefined) this.set(Math.floor((notAfter.getTime() - opts.clock.wall()) / 1000));
    },
  });
  new Gauge({
    name: 'terminal_agent_token_expiry_seconds',
    help: "Seconds until each merchant's device access token expires (local-clock estimate).",
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
    help: "Each peripheral's connection state: 1 for the current state, 0 for the others.",
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
      let up: boolean;
      try {
        up = opts.health.platformReachable();
      } catch {
        up = false;
      }
      this.set(up ? 1 : 0);
    },
  });
  const sales = counter(registry, textRegistry, {
    name: 'terminal_agent_sales_total',
    help: 'Sales started through the local API, by the state they settled in (approved, declined, failed, offline_stored, ...).',
    labelNames: ['outcome'],
  });
  const latency = new Histogram({
    name: 'terminal_agent_sale_duration_seconds',
    help: "Time from a sale's request to its outcome, by payment method.",
    labelNames: ['method'],
    buckets: SALE_BUCKETS,
    registers,
  });
  const journalErrors = counter(registry, textRegistry, {
    name: 'terminal_agent_journal_write_errors_total',
    help: 'Journal (SQLite) writes that failed under a local API request.',
    labelNames: [],
  });
  // No collectDefaultMetrics: prom-client 15 writes an event loop lag without samples as
  // `Nan`, which OpenMetrics does not allow (it spells NaN), and a strict scraper drops
  // the whole scrape; the host's own exporter has the process figures.

  return {
    registry,
    textRegistry,
    saleSettled(outcome, method, seconds) {
      sales.inc({ outcome });
      latency.observe({ method }, seconds);
    },
    journalWriteError() {
      journalErrors.inc();
    },
  };
}

/**
 * A counter in both registries as two prom-client counters counted together: the OpenMetrics
 * registry renames a shared counter in place (it strips `_total` from its name when scraped),
 * which would take the suffix the text format needs from the other.
 */
function counter(
  openMetrics: Registry<OpenMetricsContentType>,
  text: Registry,
  spec: { name: string; help: string; labelNames: string[] },
): { inc(labels?: Record<string, string>): void } {
  const both = [new Counter({ ...spec, registers: [openMetrics] }), new Counter({ ...spec, registers: [text] })];
  return {
    inc(labels = {}) {
      for (const c of both) c.inc(labels);
    },
  };
}

/** True when `err` or one of its causes is an SQLite error (better-sqlite3 codes start with SQLITE_). */
export function isSqliteError(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e !== null && typeof e === 'object' && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return true;
  }
  return false;
}
