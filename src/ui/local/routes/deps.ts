import type { Config } from '../../../config/index.js';
import type { Logger, TimeSource } from '../../../core/index.js';
import type { PaymentsApi } from '../../../payments/index.js';
import type { AgentMetrics } from '../../metrics/index.js';
import type { SseHub } from '../sse-hub.js';
import type { DeviceStatusView, HealthSource, MerchantsSource, OfflineApiSource } from '../../shared/index.js';

/**
 * What the routes are given: they are thin handlers over these, so no payment rule lives
 * in a route (docs/counter-page.md, "Local API and counter page").
 */
export interface RouteDeps {
  config: Config;
  payments: PaymentsApi;
  log: Logger;
  health: HealthSource;
  offline: OfflineApiSource | undefined;
  merchants: MerchantsSource | undefined;
  devices: () => DeviceStatusView[];
  sse: SseHub;
  runId: string;
  startedAt: number;
  clock: TimeSource;
  metrics: AgentMetrics;
}
