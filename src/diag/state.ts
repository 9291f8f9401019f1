import type { Agent } from 'undici';
import type { Config, LoadedConfig, PlatformEndpoints } from '../config/index.js';
import type { Logger } from '../core/index.js';
import type { SerialBinding, SerialPortInfo } from '../devices/index.js';
import type { DeviceIdentity } from '../identity/index.js';
import type { HostDispatchers } from '../platform/index.js';
import type { ApiAgentStatus, ApiDeviceStatus } from '../ui/index.js';
import type { CertificateFacts, OfflineSummary } from './types.js';

export interface DiagOptions {
  /** Loads the configuration; a throw is what check 1 reports. */
  loadConfig: () => LoadedConfig;
  /** config/environments.json by default (resolveEndpoints). */
  environmentsFile?: string;
  /** Default: silent. Diagnostics print their own findings; the log is for debugging them. */
  log?: Logger;
  /** Upper bound of each check (default 10 s). */
  checkTimeoutMs?: number;
  /** Serial ports: the operating system's by default; tests pass MockBinding. */
  binding?: SerialBinding;
  /** Wall clock (ms since the epoch); tests shift it. */
  now?: () => number;
}

/** What the running agent's local API told us, if it runs. */
export interface AgentProbe {
  url: string | undefined;
  running: boolean;
  /** Why we could not tell or reach it. */
  note?: string;
  healthz?: unknown;
  status?: ApiAgentStatus;
  devices?: ApiDeviceStatus[];
}

/**
 * The state of one diagnostics run, filled in check by check: later checks use what
 * earlier ones found (configuration, identity, token). The token stays in here and is
 * never printed or written to the bundle.
 */
export interface DiagState {
  log: Logger;
  checkTimeoutMs: number;
  binding: SerialBinding | undefined;
  now: () => number;
  environmentsFile: string | undefined;
  loaded?: LoadedConfig;
  config?: Config;
  configError?: string;
  endpoints?: PlatformEndpoints;
  endpointsError?: string;
  /** environment local with the embedded demo platform: it runs only inside the agent. */
  embeddedDemo: boolean;
  identity?: DeviceIdentity;
  /** Created on first use from the identity; closed when the run ends. */
  dispatchers?: HostDispatchers;
  agents: Agent[];
  agent: AgentProbe;
  /** The platform could not be reached at all (later platform checks say so instead of repeating the error). */
  unreachable?: { finding: string; remedy: string };
  /** What diag's own platform check found (available or not), for the agent check to compare with the agent's view. */
  platformAvailable?: boolean;
  token?: { value: string; clientId: string };
  collected: {
    certificate?: CertificateFacts | { error: string };
    ports?: SerialPortInfo[] | { error: string };
    offline?: OfflineSummary | { error: string } | null;
  };
}
