/**
 * The local API and the counter page (docs/architecture.md, "Layers"), in parts, each
 * reached through its own index.ts: the wire types, schemas and sources they share
 * (shared/), metrics (metrics/), the OpenAPI document (openapi/), the CLI's client
 * (client/), the loopback API with its routes (local/), the store-network listener for
 * registers (lan/) and the browser page (page/, built on its own). The composition root
 * builds their parts from what this file exports.
 */
export * from './shared/index.js';
export {
  createAgentMetrics,
  isSqliteError,
  type AgentMetrics,
  type AgentMetricsOptions,
  type MetricsSource,
} from './metrics/index.js';
export { openApiDocument, openApiText } from './openapi/index.js';
export * from './client/index.js';
export * from './local/index.js';
export * from './lan/index.js';
