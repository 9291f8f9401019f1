import { chmodSync, closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, basename } from 'node:path';
import { redactConfig } from '../config/index.js';
import { AgentError, describeError, ErrorCodes } from '../core/index.js';
import { systemBinding } from '../devices/index.js';
import { tailLog, type LogTail } from './log-tail.js';
import { runDiagnostics } from './run.js';
import { scrubValue } from './scrub.js';
import type { DiagOptions } from './state.js';
import type { DiagReport } from './types.js';
import { readUnitJournal, type UnitJournal, type UnitJournalOptions } from './unit-journal.js';
import { collectVersions, type Versions } from './versions.js';

export const BUNDLE_FORMAT = 1;

export interface DiagBundle {
  kind: 'terminal-agent-diagnostics';
  format: number;
  createdAt: string;
  host: string;
  versions: Versions;
  report: DiagReport;
  config: { file: string | null; endpoints: unknown; effective: unknown } | { error: string };
  certificate: unknown;
  serialPorts: unknown;
  offline: unknown;
  agent: {
    running: boolean;
    url: string | null;
    note: string | null;
    healthz: unknown;
    status: unknown;
    devices: unknown;
  };
  log: (Omit<LogTail, 'lines'> & { lines: string[] }) | { error: string } | null;
  /** The systemd unit's journal of the last hour, or why there is none. */
  journal: UnitJournal;
}

export interface BundleOptions extends DiagOptions {
  /** Agent log file whose last lines go in (re-scrubbed). */
  logFile?: string;
  /** How many log lines (default 500). */
  logLines?: number;
  /** How the unit's journal is read (tests give a PATH with a fake journalctl). */
  journal?: UnitJournalOptions;
}

/**
 * The support bundle, a way to get the device's logs and state (docs/operations.md,
 * "CLI commands"): every check's outcome, the configuration with secrets redacted,
 * certificate facts (no key), versions, serial ports, offline summary, the running
 * agent's status, the end of its log and the unit's journal of the last hour
 * (unit-journal.ts). Everything passes scrubValue last; the log lines and journal
 * messages scrubLogLine.
 */
export async function buildBundle(opts: BundleOptions): Promise<DiagBundle> {
  const { report, state } = await runDiagnostics(opts);
  let log: DiagBundle['log'] = null;
  if (opts.logFile !== undefined) {
    try {
      log = tailLog(opts.logFile, opts.logLines ?? 500);
    } catch (err) {
      log = { error: err instanceof Error ? err.message : String(err) };
    }
  }
  const bundle: Omit<DiagBundle, 'journal'> = {
    kind: 'terminal-agent-diagnostics',
    format: BUNDLE_FORMAT,
    createdAt: new Date(state.now()).toISOString(),
    host: hostname(),
    versions: await collectVersions(),
    report,
    config:
      state.config !== undefined
        ? {
            file: state.loaded?.file ?? null,
            endpoints: state.endpoints ?? { error: state.endpointsError ?? null },
            effective: redactConfig(state.config),
          }
        : { error: state.configError ?? 'not loaded' },
    certificate: state.collected.certificate ?? null,
    serialPorts: state.collected.ports ?? (await listPorts(opts, state.checkTimeoutMs)),
    offline: state.collected.offline ?? null,
    agent: {
      running: state.agent.running,
      url: state.agent.url ?? null,
      note: state.agent.note ?? null,
      healthz: state.agent.healthz ?? null,
      status: state.agent.status ?? null,
      devices: state.agent.devices ?? null,
    },
    log: null,
  };
  const journal = await readUnitJournal(opts.journal);
  // Log lines and journal messages were scrubbed one by one, JSON-aware (tailLog,
  // readUnitJournal), so numbers such as `time` survive.
  return { ...(scrubValue(bundle) as Omit<DiagBundle, 'journal'>), log, journal };
}

/** The machine's serial ports even when the serial check did not list them (simulated devices, no configuration). */
async function listPorts(opts: BundleOptions, timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const binding = opts.binding ?? systemBinding();
    return await Promise.race([
      binding.list(),
      new Promise<{ error: string }>((resolve) => {
        timer = setTimeout(
          () => resolve({ error: `listing the serial ports took longer than ${timeoutMs} ms` }),
          timeoutMs,
        );
      }),
    ]);
  } catch (err) {
    return { error: describeError(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Default bundle name: host and time, in the working directory. */
export function defaultBundleFile(now: Date = new Date()): string {
  return `terminal-agent-diag-${hostname().replace(/[^A-Za-z0-9_.-]/g, '_')}-${now.toISOString().replace(/[:.]/g, '-')}.json`;
}

/** Writes the bundle readable by its owner only (0600), via a temporary file so a reader never sees half of it. */
export function writeBundle(file: string, bundle: DiagBundle): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'w', 0o600);
    chmodSync(tmp, 0o600);
    writeSync(fd, `${JSON.stringify(bundle, null, 2)}\n`);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
    chmodSync(file, 0o600);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `cannot write the diagnostics bundle ${file} (${code}): choose another --out`,
      { cause: err },
    );
  }
}
