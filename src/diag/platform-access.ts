import { resolveSecureEndpoints, type PlatformEndpoints, type Config } from '../config/index.js';
import { describeError, isAgentError, ErrorCodes } from '../core/index.js';
import { createMtlsDispatcher } from '../identity/index.js';
import { HostDispatchers, isPlatformError } from '../platform/index.js';
import type { DiagState } from './state.js';
import type { Outcome } from './types.js';

/**
 * The hosts diagnostics talk to. With environment local and the embedded demo platform,
 * the platform exists only while the agent (or `terminal-agent sim`) runs, on the sim ports.
 */
export function diagEndpoints(config: Config, environmentsFile?: string): PlatformEndpoints {
  if (config.environment === 'local' && config.sim.embedded) {
    const host = config.sim.host.includes(':') ? `[${config.sim.host}]` : config.sim.host;
    return {
      baseUrl: config.platform.baseUrl?.replace(/\/+$/, '') ?? `https://${host}:${config.sim.apiPort}`,
      authUrl: config.platform.authUrl?.replace(/\/+$/, '') ?? `https://${host}:${config.sim.apiPort}`,
      deviceAuthUrl: config.platform.deviceAuthUrl?.replace(/\/+$/, '') ?? `https://${host}:${config.sim.mtlsPort}`,
    };
  }
  return resolveSecureEndpoints(config, environmentsFile);
}

/** One mTLS dispatcher per host, with the timeouts capped by the check budget. */
export function dispatchersOf(state: DiagState): HostDispatchers | undefined {
  if (state.dispatchers !== undefined) return state.dispatchers;
  const { identity, config } = state;
  if (identity === undefined || config === undefined) return undefined;
  const cap = (ms: number): number => Math.min(ms, state.checkTimeoutMs);
  const timeouts = {
    connectTimeoutMs: cap(config.platform.connectTimeoutMs),
    headersTimeoutMs: cap(config.platform.headersTimeoutMs),
    bodyTimeoutMs: cap(config.platform.bodyTimeoutMs),
  };
  state.dispatchers = new HostDispatchers((origin) => {
    const agent = createMtlsDispatcher(identity, timeouts);
    state.log.debug({ origin }, 'diagnostics dispatcher created');
    state.agents.push(agent);
    return agent;
  });
  return state.dispatchers;
}

const UNREACHABLE =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT|ECONNRESET)$/;

/** True when the error says nothing answered at the host (as opposed to a refusal or a bad answer). */
export function isUnreachable(err: unknown): boolean {
  if (isPlatformError(err))
    return err.category === 'network' && err.transportCode !== undefined && UNREACHABLE.test(err.transportCode);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && UNREACHABLE.test(code);
}

export function unreachableRemedy(state: DiagState, host: string): string {
  if (state.embeddedDemo) {
    return 'the embedded demo platform runs only inside the agent: start the agent (`terminal-agent start`) or the demo platform alone (`terminal-agent sim`)';
  }
  return `check the network, DNS and firewall towards ${host}, and the platform.* URLs of the configuration`;
}

/** The failure outcome of a platform call; an unreachable platform is remembered so later checks say so once more, briefly. */
export function platformFailure(state: DiagState, err: unknown, url: string): Outcome {
  const host = safeHost(url);
  if (isUnreachable(err)) {
    const finding = `platform not reachable at ${host} (${codeOf(err) ?? describeError(err)})`;
    const remedy = unreachableRemedy(state, host);
    state.unreachable ??= { finding, remedy };
    return { status: 'fail', finding, remedy, facts: { host, code: codeOf(err) } };
  }
  return {
    status: 'fail',
    finding: describeError(err),
    remedy: remedyFor(err, state),
    facts: { host, code: codeOf(err) },
  };
}

export function codeOf(err: unknown): string | undefined {
  if (isPlatformError(err)) return err.transportCode ?? err.code;
  if (isAgentError(err)) return err.code;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What to do about an auth or platform error, by its code. */
export function remedyFor(err: unknown, state: DiagState): string {
  const serial = state.identity?.serialNumber ?? 'of this terminal';
  const code = isAgentError(err) ? err.code : undefined;
  switch (code) {
    case ErrorCodes.AUTH_UNKNOWN_TERMINAL:
      return `the platform does not know terminal ${serial}: ask the acquirer to register it, or install this terminal's own device certificate`;
    case ErrorCodes.AUTH_CERT_REFUSED:
      return 'the platform refuses the device certificate: check that it is valid and issued by the platform CA (`terminal-agent certs show`), and install a renewed one if needed';
    case ErrorCodes.AUTH_INVALID_CLIENT:
      return "the platform refused the merchant's client credentials: they may have been renewed just now; run diag again, else contact the acquirer";
    case ErrorCodes.AUTH_BINDING_MISMATCH:
      return 'the token is bound to another certificate than this device certificate: check for a TLS-terminating proxy between terminal and platform, and platform.deviceAuthUrl';
    case ErrorCodes.AUTH_NO_MERCHANT:
      return 'set auth.merchantId to one of the listed merchants, or ask the acquirer to assign a merchant';
    case ErrorCodes.CERT_EXPIRED:
    case ErrorCodes.CERT_NOT_YET_VALID:
      return 'install a renewed device certificate, or fix the clock if it is wrong';
    case ErrorCodes.PLATFORM_TIMEOUT:
      return 'the platform answered too slowly: check the network quality; try again later';
    case ErrorCodes.PLATFORM_SERVER:
    case ErrorCodes.PLATFORM_BAD_RESPONSE:
      return 'the platform is failing: try again later; if it persists, contact the platform operator';
    default:
      return "check the platform.* URLs and the network; see the finding for the platform's answer";
  }
}

export function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
