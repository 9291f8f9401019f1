/** OpenMetrics figures of the agent for a fleet's scraper (docs/operations.md, "Metrics"). */
export {
  createAgentMetrics,
  isSqliteError,
  type AgentMetrics,
  type AgentMetricsOptions,
  type MetricsSource,
} from './agent-metrics.js';
