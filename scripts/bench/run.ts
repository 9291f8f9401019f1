/**
 * Quality-target benches (docs/performance.md, "Quality targets"): each prints a table of what was
 * measured, the figure, the target and whether it is met. Figures, never timed test
 * assertions. All traffic stays on loopback; counts are bounded and configurable.
 *
 *   node dist/scripts/bench/run.js [--only NAME [--count N] [--warmup N]] [--quick] [--strict]
 *                                  [--platform child|embedded] [--idle-ms N] [--json]
 *
 * The benches are the `<name>.bench.ts` files next to this one (lib/find-benches.ts finds
 * them; shared code is in lib/). --count and --warmup set the counts of the one bench chosen
 * with --only; --quick runs every bench with small counts (a few minutes less, wider error
 * bars).
 *
 * Exit code 0 when every bench ran (with --strict: 1 when a target is missed); 2 when a
 * bench could not run.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { opt, type RunnerOptions } from './lib/bench-definition.js';
import { benchCerts } from './lib/certs.js';
import { findBenches } from './lib/find-benches.js';
import { formatResult } from './lib/report.js';
import { allTargetsMet, type BenchResult } from './lib/types.js';

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number of at least 1, not ${text}`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      count: { type: 'string' },
      warmup: { type: 'string' },
      platform: { type: 'string' },
      'idle-ms': { type: 'string' },
      strict: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const benches = await findBenches(import.meta.dirname);
  const names = benches.map((b) => b.name);
  if (values.help) {
    process.stdout.write(
      `usage: bench [--only ${names.join('|')} [--count N] [--warmup N]] [--quick] [--platform child|embedded] [--idle-ms N] [--strict] [--json]\n`,
    );
    return 0;
  }
  if (values.only !== undefined && !names.includes(values.only))
    throw new Error(`--only must be one of ${names.join(', ')}, not ${values.only}`);
  if (values.only === undefined && (values.count !== undefined || values.warmup !== undefined)) {
    throw new Error(
      '--count and --warmup need --only NAME (each bench counts something else); use --quick for small counts everywhere',
    );
  }
  const platform = values.platform;
  if (platform !== undefined && !isRunnerPlatform(platform))
    throw new Error(`--platform must be child or embedded, not ${platform}`);
  const selected = values.only !== undefined ? benches.filter((b) => b.name === values.only) : benches;
  const certs = benchCerts();
  const run: RunnerOptions = {
    certsDir: certs.paths.dir,
    ...opt('count', positiveInt('count', values.count)),
    ...opt('warmup', positiveInt('warmup', values.warmup)),
    ...opt('platform', platform),
    ...opt('idleMs', positiveInt('idle-ms', values['idle-ms'])),
  };
  const results: BenchResult[] = [];
  let failed = false;
  try {
    for (const { name, quickCount, run: bench } of selected) {
      process.stderr.write(`running ${name} ...\n`);
      try {
        const load = loadavg()[0] ?? Number.NaN;
        const quick = values.quick && run.count === undefined ? { count: quickCount } : {};
        const result = await bench({ ...run, ...quick });
        // Two shared cores: the machine's load says how far the figures can be trusted.
        result.notes.push(`load average (1 min) when it started: ${load.toFixed(2)}`);
        results.push(result);
        if (!values.json) process.stdout.write(`${formatResult(result)}\n`);
      } catch (err) {
        failed = true;
        process.stderr.write(`${name} failed: ${(err as Error).message}\n`);
      }
    }
  } finally {
    certs.cleanup();
  }
  if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (failed) return 2;
  return values.strict && !results.every(allTargetsMet) ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    process.exitCode = 2;
  },
);

function isRunnerPlatform(p: string): p is NonNullable<RunnerOptions['platform']> {
  return p === 'child' || p === 'embedded';
}
