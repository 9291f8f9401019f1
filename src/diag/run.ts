import { packageVersion } from '../config/index.js';
import { describeError, silentLogger } from '../core/index.js';
import { checkAgent, probeAgent } from './checks/agent.js';
import { checkCertificate } from './checks/certificate.js';
import { checkClock } from './checks/clock.js';
import { checkConfig } from './checks/config.js';
import { checkJournalSpace } from './checks/journal.js';
import { checkOffline } from './checks/offline.js';
import { checkPlatform } from './checks/platform.js';
import { checkSerial } from './checks/serial.js';
import { checkTls } from './checks/tls.js';
import { checkToken } from './checks/token.js';
import type { DiagOptions, DiagState } from './state.js';
import type { CheckResult, CheckStatus, DiagReport, Outcome } from './types.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

const PLATFORM_STEPS = new Set(['clock', 'tls.device-auth', 'tls.api', 'token', 'platform']);

interface Step {
  id: string;
  title: string;
  run(state: DiagState, signal: AbortSignal): Promise<Outcome | Outcome[]> | Outcome | Outcome[];
}

/** The checks in the order docs/operations.md ("CLI commands") lists them; later ones use what earlier ones found. */
function steps(opts: DiagOptions): Step[] {
  return [
    { id: 'config', title: 'configuration', run: (s) => checkConfig(s, opts.loadConfig) },
    { id: 'certificate', title: 'device certificate', run: (s) => checkCertificate(s) },
    { id: 'clock', title: 'clock', run: (s, signal) => checkClock(s, signal) },
    { id: 'tls.device-auth', title: 'TLS device auth host', run: (s, signal) => checkTls(s, 'device-auth', signal) },
    { id: 'tls.api', title: 'TLS main API host', run: (s, signal) => checkTls(s, 'api', signal) },
    { id: 'token', title: 'merchants and token', run: (s, signal) => checkToken(s, signal) },
    { id: 'platform', title: 'platform available', run: (s, signal) => checkPlatform(s, signal) },
    { id: 'serial', title: 'serial ports', run: (s) => checkSerial(s) },
    { id: 'offline', title: 'offline queue', run: (s) => checkOffline(s) },
    { id: 'journal', title: 'journal size and retention', run: (s) => checkJournalSpace(s) },
    { id: 'agent', title: 'running agent', run: (s) => checkAgent(s) },
  ];
}

/** Runs `work` with an abort signal that fires after `ms`; a late answer is ignored. */
async function bounded<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T> | T,
): Promise<{ value: T } | { timedOut: true }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('diagnostic check timed out'));
      resolve({ timedOut: true });
    }, ms);
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(() => work(controller.signal))
        .then((value) => ({ value })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface DiagRun {
  report: DiagReport;
  /** Everything the checks learnt, for the bundle (never the token). */
  state: DiagState;
}

/**
 * Runs every check in order, each bounded by `checkTimeoutMs`; never throws for a
 * failing check. Nothing is started: a platform or agent that is not running is reported.
 */
export async function runDiagnostics(opts: DiagOptions): Promise<DiagRun> {
  const started = Date.now();
  const t0 = performance.now();
  const state: DiagState = {
    log: (opts.log ?? silentLogger()).child({ module: 'diag' }),
    checkTimeoutMs: opts.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
    binding: opts.binding,
    now: opts.now ?? Date.now,
    environmentsFile: opts.environmentsFile,
    embeddedDemo: false,
    agents: [],
    agent: { url: undefined, running: false },
    collected: {},
  };
  const checks: CheckResult[] = [];
  try {
    for (const step of steps(opts)) {
      if (step.id === 'serial') await probeAgent(state);
      const s0 = performance.now();
      let outcomes: Outcome[];
      try {
        const r = await bounded(state.checkTimeoutMs, (signal) => step.run(state, signal));
        if ('timedOut' in r) {
          const finding = `did not finish within ${state.checkTimeoutMs} ms`;
          const remedy = PLATFORM_STEPS.has(step.id)
            ? 'the platform accepts connections but does not answer: check for a proxy or firewall in the way, or try again later'
            : 'something hangs: run diag again, then look at the device named by this check';
          // One hung platform call is enough: the later platform checks say so instead of waiting again.
          if (PLATFORM_STEPS.has(step.id)) state.unreachable ??= { finding: `platform ${finding}`, remedy };
          outcomes = [{ status: 'fail', finding, remedy }];
        } else outcomes = Array.isArray(r.value) ? r.value : [r.value];
      } catch (err) {
        outcomes = [
          {
            status: 'fail',
            finding: `the check itself failed: ${describeError(err)}`,
            remedy: 'report this to support with a diagnostics bundle',
          },
        ];
      }
      const durationMs = Math.round(performance.now() - s0);
      for (const o of outcomes) {
        checks.push({
          id: o.id ?? step.id,
          title: o.title ?? step.title,
          status: o.status,
          finding: o.finding,
          ...(o.remedy !== undefined ? { remedy: o.remedy } : {}),
          durationMs,
          ...(o.facts !== undefined ? { facts: o.facts } : {}),
        });
      }
    }
  } finally {
    // destroy, not close: a request a timed-out check left hanging must not hold the run up.
    await Promise.allSettled(state.agents.map((a) => a.destroy()));
  }
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const c of checks) counts[c.status]++;
  return {
    report: {
      version: packageVersion(),
      ok: counts.fail === 0,
      startedAt: new Date(started).toISOString(),
      durationMs: Math.round(performance.now() - t0),
      counts,
      checks,
    },
    state,
  };
}
