import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from '../../core/index.js';
import type { DiagOptions } from '../../diag/index.js';
import { flagsFrom, systemConfigFile, type GlobalOptions } from '../options.js';
import { usageError } from '../usage.js';

interface DiagFlags extends GlobalOptions {
  timeout?: string;
  baseUrl?: string;
  authUrl?: string;
  deviceAuthUrl?: string;
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw usageError(`${flag} must be a positive whole number, not ${JSON.stringify(value.slice(0, 20))}`);
  return n;
}

/** The diagnostics' own log goes to stderr, and only when asked for with --log-level, so stdout stays the report. */
async function diagLogger(opts: DiagFlags): Promise<Logger> {
  const { createLogger, silentLogger } = await import('../../core/index.js');
  return opts.logLevel === undefined
    ? silentLogger()
    : createLogger({ level: opts.logLevel as 'debug', destination: process.stderr });
}

async function diagOptions(cmd: Command): Promise<DiagOptions> {
  const { loadConfig } = await import('../../config/index.js');
  const opts = cmd.optsWithGlobals<DiagFlags>();
  const platform: Record<string, string> = {};
  if (opts.baseUrl !== undefined) platform.baseUrl = opts.baseUrl;
  if (opts.authUrl !== undefined) platform.authUrl = opts.authUrl;
  if (opts.deviceAuthUrl !== undefined) platform.deviceAuthUrl = opts.deviceAuthUrl;
  const flags = { ...flagsFrom(opts), ...(Object.keys(platform).length > 0 ? { platform } : {}) };
  // Without --config, the installed terminal's file: a field engineer checks the real configuration, not the demo one.
  const systemFile = await systemConfigFile();
  return {
    // Loaded inside the run: a configuration that does not load is check 1's finding.
    loadConfig: () => loadConfig({ ...(opts.config !== undefined ? { file: opts.config } : {}), systemFile, flags }),
    checkTimeoutMs: positiveInt(opts.timeout, '--timeout', 10_000),
    log: await diagLogger(opts),
  };
}

function withPlatformOptions(cmd: Command): Command {
  return cmd
    .option('--timeout <ms>', 'upper bound of each check in milliseconds', '10000')
    .option('--base-url <url>', 'main API host to check (overrides platform.baseUrl)')
    .option('--auth-url <url>', 'security host to check (overrides platform.authUrl)')
    .option('--device-auth-url <url>', 'device auth host to check (overrides platform.deviceAuthUrl)');
}

/**
 * `terminal-agent diag`: the field engineer's checks, one line each, exit 1 when one
 * failed; `diag bundle` writes the same findings and the terminal's state for support.
 */
export function register(program: Command): void {
  const diag = withPlatformOptions(
    program
      .command('diag')
      .description(
        'diagnose this terminal: configuration, certificate, clock, TLS, token, platform, serial ports, offline queue, running agent',
      ),
  ).action(async (opts: { json?: boolean }, cmd: Command) => {
    const { formatReport, runDiagnostics } = await import('../../diag/index.js');
    const { report } = await runDiagnostics(await diagOptions(cmd));
    process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    if (!report.ok) process.exitCode = 1;
  });

  withPlatformOptions(
    diag
      .command('bundle')
      .description(
        'write a diagnostics bundle for support: every check, redacted configuration, certificate facts, versions, ports, offline queue, agent status, log tail',
      )
      .option('--out <file>', 'where to write the bundle (default terminal-agent-diag-<host>-<time>.json)')
      .option('--log <file>', "the agent's log file; its last lines go in, secrets removed")
      .option('--lines <n>', 'how many log lines', '500'),
  ).action(async (opts: { out?: string; log?: string; lines?: string; json?: boolean }, cmd: Command) => {
    const { buildBundle, defaultBundleFile, writeBundle } = await import('../../diag/index.js');
    const lines = positiveInt(opts.lines, '--lines', 500);
    const file = resolve(opts.out ?? defaultBundleFile());
    const bundle = await buildBundle({
      ...(await diagOptions(cmd)),
      ...(opts.log !== undefined ? { logFile: resolve(opts.log) } : {}),
      logLines: lines,
    });
    writeBundle(file, bundle);
    const r = bundle.report;
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ file, ok: r.ok, counts: r.counts }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      `diagnostics bundle written to ${file} (mode 0600): ${r.counts.ok} ok, ${r.counts.warn} warnings, ${r.counts.fail} failed\n`,
    );
  });
}
