import { describeError, undiciRequest } from '../../core/index.js';
import {
  LocalApiClient,
  localApiUrl,
  readLocalToken,
  type ApiAgentStatus,
  type ApiDeviceStatus,
} from '../../ui/index.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';

const PROBE_MS = 1_500;

/**
 * Whether the agent runs: its health route answers on the configured local API port
 * (no token needed). Used before the serial check, which must not open ports the
 * running agent holds; the agent check reports it at the end.
 */
export async function probeAgent(state: DiagState): Promise<void> {
  const config = state.config;
  if (config === undefined) {
    state.agent = { url: undefined, running: false, note: 'configuration not loaded' };
    return;
  }
  let url: string;
  try {
    url = localApiUrl(config);
  } catch (err) {
    state.agent = { url: undefined, running: false, note: describeError(err) };
    return;
  }
  try {
    const res = await undiciRequest(`${url}/healthz`, {
      method: 'GET',
      headersTimeout: PROBE_MS,
      bodyTimeout: PROBE_MS,
      signal: AbortSignal.timeout(PROBE_MS),
    });
    const text = await res.body.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const ok = res.statusCode === 200 && (body as { status?: unknown } | undefined)?.status === 'ok';
    state.agent = ok
      ? { url, running: true, healthz: body }
      : { url, running: false, note: `something else answers at ${url} (HTTP ${res.statusCode})` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    state.agent = {
      url,
      running: false,
      note: code === 'ECONNREFUSED' ? `nothing answers at ${url}` : `${url}: ${code ?? describeError(err)}`,
    };
  }
}

function client(state: DiagState): LocalApiClient {
  const config = state.config;
  if (config === undefined || state.agent.url === undefined) throw new Error('agent not running');
  return new LocalApiClient(state.agent.url, readLocalToken(config.dataDir), state.checkTimeoutMs);
}

/** GET /api/v1/devices of the running agent. */
export async function agentDevices(state: DiagState): Promise<ApiDeviceStatus[]> {
  if (state.agent.devices !== undefined) return state.agent.devices;
  const devices = await client(state).devices();
  state.agent.devices = devices;
  return devices;
}

/** Check 9: the running agent's /healthz and /api/v1/status. */
export async function checkAgent(state: DiagState): Promise<Outcome> {
  const probe = state.agent;
  if (!probe.running) {
    return {
      status: 'warn',
      finding: `the agent is not running${probe.note ? ` (${probe.note})` : ''}`,
      remedy:
        'start it: `terminal-agent start` (or `systemctl start terminal-agent`); with another API port, pass --api-port',
      facts: { running: false, url: probe.url ?? null },
    };
  }
  let status: ApiAgentStatus;
  try {
    status = await client(state).status();
  } catch (err) {
    return {
      status: 'warn',
      finding: `/healthz answers at ${probe.url}, but /api/v1/status does not: ${describeError(err)}`,
      remedy: "run diag as the agent's user with the agent's --data-dir, so the local API token can be read",
      facts: { running: true, url: probe.url },
    };
  }
  probe.status = status;
  const failing = Object.entries(status.checks)
    .filter(([, c]) => !c.ok)
    .map(([name, c]) => `${name}: ${c.detail}`);
  const platform = status.platform.online
    ? 'online'
    : `offline${status.platform.reason !== undefined ? ` (${status.platform.reason})` : ''}`;
  const head = `running at ${probe.url}, up ${status.agent.uptimeSeconds} s, environment ${status.agent.environment}, platform ${platform}`;
  const facts = {
    running: true,
    url: probe.url,
    ready: status.ready,
    checks: status.checks,
    platformOnline: status.platform.online,
  };
  // The agent's watch and diag's own isAvailable must agree (docs/counter-page.md, "Local API and counter page"); a
  // disagreement right at a change is possible, a lasting one is a fault worth a warning.
  if (state.platformAvailable !== undefined && state.platformAvailable !== status.platform.online) {
    return {
      status: 'warn',
      finding: `${head}; but diag's own check found the platform ${state.platformAvailable ? 'available' : 'not available'}`,
      remedy:
        'run diag again in a few seconds: the agent checks the platform every few seconds; if it still disagrees, restart the agent and send a support bundle',
      facts: { ...facts, diagPlatformAvailable: state.platformAvailable },
    };
  }
  if (!status.ready)
    return {
      status: 'warn',
      finding: `${head}; NOT READY (${failing.join('; ')})`,
      remedy: 'see the checks above for the cause',
      facts,
    };
  return { status: 'ok', finding: `${head}; ready`, facts };
}
