import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema, type Config } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import { buildLocalApi, type LocalApi, type LocalApiOptions } from '../../src/agent/local-api.js';
import {
  OFFLINE_ITEM_STATES,
  type HealthSource,
  type MerchantsSource,
  type MerchantView,
  type OfflineApiSource,
  type OfflineItemsPage,
  type OfflineItemView,
  type OfflineLevelsView,
} from '../../src/ui/shared/sources.js';
import { AgentError, ErrorCodes } from '../../src/core/errors.js';
import { tempDir } from './temp-dir.js';
import { testLogger, type LogSink } from './log-sink.js';
import { FakePayments } from './fake-payments.js';
import type { ApiPlatformStatus } from '../../src/ui/shared/wire-types.js';
import { installContractDispatcher } from './api-contract-dispatcher.js';

export class FakeHealth implements HealthSource {
  token = true;
  reachable = true;
  offline = false;
  reader = true;
  /** The watch's view, when a test sets one (else derived from `reachable`). */
  platform?: () => ApiPlatformStatus;
  tokenHeld(): boolean {
    return this.token;
  }
  platformReachable(): boolean {
    return this.reachable;
  }
  offlineAllowed(): boolean {
    return this.offline;
  }
  readerConnected(): boolean {
    return this.reader;
  }
}

export class FakeOffline implements OfflineApiSource {
  flushed = 0;
  /** Queue items as a source would list them (tests add and change them). */
  readonly queue: OfflineItemView[] = [];
  readonly requeued: string[] = [];
  levels(): OfflineLevelsView {
    const needsAttention = this.queue.filter((i) => i.state === 'needs_attention').length;
    const states = Object.fromEntries(
      OFFLINE_ITEM_STATES.map((s) => [s, this.queue.filter((i) => i.state === s).length]),
    ) as OfflineLevelsView['states'];
    return {
      enabled: true,
      count: 2,
      maxCount: 500,
      totals: { EUR: 4_000 },
      maxTotal: { EUR: 500_000 },
      floorLimits: { EUR: 25_000 },
      ...(needsAttention > 0 ? { needsAttention } : {}),
      states,
    };
  }
  async flush() {
    this.flushed++;
    // As the real queue: what it says it sent is no longer waiting (the page checks the two agree).
    this.queue.forEach((item, i) => {
      if (item.state === 'queued' || item.state === 'uploading') this.queue[i] = { ...item, state: 'uploaded' };
    });
    return { uploaded: 2, failed: 0, remaining: 0 };
  }
  /** Pages as the real queue does: after the item `after` in the queue's order (an unknown one refused), at most `limit`. */
  items(states?: readonly string[], page: OfflineItemsPage = {}): OfflineItemView[] {
    let start = 0;
    if (page.after !== undefined) {
      start = this.queue.findIndex((i) => i.clientTransactionId === page.after) + 1;
      if (start === 0)
        throw new AgentError(ErrorCodes.INPUT_INVALID, `after: no offline sale ${page.after} in the queue`);
    }
    const items = this.queue.slice(start).filter((i) => states === undefined || states.includes(i.state));
    return page.limit !== undefined ? items.slice(0, page.limit) : items;
  }
  requeue(id: string): OfflineItemView {
    const item = this.queue.find((i) => i.clientTransactionId === id);
    if (item === undefined) throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no offline sale ${id} in the queue`);
    if (item.state !== 'needs_attention') {
      throw new AgentError(
        ErrorCodes.PAYMENT_STATE,
        `offline sale ${id} is ${item.state}: only a sale needing attention can be queued again`,
      );
    }
    this.requeued.push(id);
    item.state = 'queued';
    item.lastMessage = 'queued again by staff';
    return item;
  }
}

export class FakeMerchants implements MerchantsSource {
  list: MerchantView[] = [];
  merchants(): MerchantView[] {
    return this.list;
  }
}

export interface Started {
  api: LocalApi;
  url: string;
  token: string;
  config: Config;
  bus: EventBus;
  payments: FakePayments;
  health: FakeHealth;
  offline: FakeOffline;
  merchants: FakeMerchants;
  sink: LogSink;
  dataDir: string;
  auth: Record<string, string>;
  close: () => Promise<void>;
}

/** A page template for tests that do not need the real counter page. */
export function pageDir(root: string): string {
  const dir = join(root, 'page');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<html><head><title>Counter</title></head></html>');
  writeFileSync(join(dir, 'styles.css'), 'body{}');
  return dir;
}

export async function startApi(
  opts: {
    dataDir?: string;
    withOffline?: boolean;
    config?: Record<string, unknown>;
    extra?: Partial<LocalApiOptions>;
    pageDirs?: string[];
  } = {},
): Promise<Started> {
  // Answers the CLI's client receives are checked against the OpenAPI document too.
  installContractDispatcher();
  const tmp = tempDir('terminal-agent-ui-');
  const dataDir = opts.dataDir ?? join(tmp.dir, 'data');
  const config = configSchema.parse({ dataDir, api: { port: 0 }, ...opts.config });
  const bus = new EventBus();
  const payments = new FakePayments();
  const health = new FakeHealth();
  const offline = new FakeOffline();
  const merchants = new FakeMerchants();
  const { log, sink } = testLogger();
  const api = buildLocalApi({
    config,
    payments,
    bus,
    log,
    health,
    ...(opts.withOffline === false ? {} : { offline }),
    merchants,
    pageDirs: opts.pageDirs ?? [pageDir(tmp.dir)],
    ...opts.extra,
  });
  const { url, token } = await api.start();
  return {
    api,
    url,
    token,
    config,
    bus,
    payments,
    health,
    offline,
    merchants,
    sink,
    dataDir,
    auth: { authorization: `Bearer ${token}` },
    close: async () => {
      await api.stop();
      tmp.cleanup();
    },
  };
}
