import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema, type Config } from '../../src/config/schema.js';
import { EventBus } from '../../src/events/bus.js';
import { createLocalApi, type LocalApi, type LocalApiOptions } from '../../src/ui/local-api.js';
import type { HealthSource, OfflineApiSource, OfflineLevelsView } from '../../src/ui/sources.js';
import { tempDir } from '../helpers/tmp.js';
import { testLogger, type LogSink } from '../helpers/log-sink.js';
import { FakePayments } from './fake-payments.js';

export class FakeHealth implements HealthSource {
  token = true;
  reachable = true;
  offline = false;
  reader = true;
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
  levels(): OfflineLevelsView {
    return { enabled: true, count: 2, maxCount: 500, totals: { EUR: 4_000 }, maxTotal: { EUR: 500_000 }, floorLimits: { EUR: 25_000 } };
  }
  async flush() {
    this.flushed++;
    return { uploaded: 2, failed: 0, remaining: 0 };
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
  sink: LogSink;
  dataDir: string;
  auth: Record<string, string>;
  close: () => Promise<void>;
}

/** A page template for tests that do not need the real counter page. */
export function pageDir(root: string): string {
  const dir = join(root, 'page');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<html><head><meta name="local-api-token" content="%%LOCAL_API_TOKEN%%"></head></html>');
  writeFileSync(join(dir, 'styles.css'), 'body{}');
  return dir;
}

export async function startApi(
  opts: { dataDir?: string; withOffline?: boolean; config?: Record<string, unknown>; extra?: Partial<LocalApiOptions>; pageDirs?: string[] } = {},
): Promise<Started> {
  const tmp = tempDir('terminal-agent-ui-');
  const dataDir = opts.dataDir ?? join(tmp.dir, 'data');
  const config = configSchema.parse({ dataDir, api: { port: 0 }, ...opts.config });
  const bus = new EventBus();
  const payments = new FakePayments();
  const health = new FakeHealth();
  const offline = new FakeOffline();
  const { log, sink } = testLogger();
  const api = createLocalApi({
    config,
    payments,
    bus,
    log,
    health,
    ...(opts.withOffline === false ? {} : { offline }),
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
    sink,
    dataDir,
    auth: { authorization: `Bearer ${token}` },
    close: async () => {
      await api.stop();
      tmp.cleanup();
    },
  };
}
