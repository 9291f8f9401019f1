/**
 * Quality-target benches (DESIGN.md "Quality targets"): each prints a table of what was
 * measured, the figure, the target and whether it is met. Figures, never timed test
 * assertions. All traffic stays on loopback; counts are bounded and configurable.
 *
 *   node dist/scripts/bench/index.js [--only NAME [--count N] [--warmup N]] [--quick] [--strict]
 *                                    [--platform child|embedded] [--idle-ms N] [--json]
 *
 * --count and --warmup set the counts of the one bench chosen with --only; --quick runs
 * every bench with small counts (a few minutes less, wider error bars).
 *
 * Exit code 0 when every bench ran (with --strict: 1 when a target is missed); 2 when a
 * bench could not run.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchCerts } from './certs.js';
import { benchColdStart } from './cold-start.js';
import { benchDurableEnqueue } from './durable-enqueue.js';
import { benchOnlineSale } from './online-sale.js';
import { benchQueueDrain } from './queue-drain.js';
import { formatResult } from './report.js';
import { benchRelay } from './relay.js';
import { benchRssFlat } from './rss-flat.js';
import { allTargetsMet, type BenchResult } from './types.js';

interface RunOptions {
  certsDir: string;
  count?: number;
  warmup?: number;
  platform?: 'child' | 'embedded';
  idleMs?: number;
}

/** Small counts per bench for --quick. */
const QUICK: Record<string, number> = { 'durable-enqueue': 1_000, 'queue-drain': 200, 'online-sale': 100, relay: 10, 'cold-start': 3, 'rss-flat': 1_000 };

const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } => (value === undefined ? {} : ({ [key]: value } as { [P in K]?: V }));

/** Every bench by name, in the order `all` runs them (cheapest first). */
const benches: Record<string, (o: RunOptions) => Promise<BenchResult>> = {
  'durable-enqueue': (o) => benchDurableEnqueue({ certsDir: o.certsDir, ...opt('count', o.count) }),
  'queue-drain': (o) => benchQueueDrain({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('platform', o.platform) }),
  'online-sale': (o) => benchOnlineSale({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('warmup', o.warmup) }),
  relay: (o) => benchRelay({ certsDir: o.certsDir, ...opt('count', o.count) }),
  'cold-start': (o) => benchColdStart({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('idleMs', o.idleMs) }),
  'rss-flat': (o) => benchRssFlat({ certsDir: o.certsDir, ...opt('count', o.count), ...opt('warmup', o.warmup), ...opt('platform', o.platform) }),
};

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
  const names = Object.keys(benches);
  if (values.help) {
    process.stdout.write(`usage: bench [--only ${names.join('|')} [--count N] [--warmup N]] [--quick] [--platform child|embedded] [--idle-ms N] [--strict] [--json]\n`);
    return 0;
  }
  if (values.only !== undefined && !names.includes(values.only)) throw new Error(`--only must be one of ${names.join(', ')}, not ${values.only}`);
  if (values.only === undefined && (values.count !== undefined || values.warmup !== undefined)) {
    throw new Error('--count and --warmup need --only NAME (each bench counts something else); use --quick for small counts everywhere');
  }
  if (values.platform !== undefined && values.platform !== 'child' && values.platform !== 'embedded') throw new Error(`--platform must be child or embedded, not ${values.platform}`);
  const selected = values.only !== undefined ? [values.only] : names;
  const certs = benchCerts();
  const run: RunOptions = {
    certsDir: certs.paths.dir,
    ...opt('count', positiveInt('count', values.count)),
    ...opt('warmup', positiveInt('warmup', values.warmup)),
    ...opt('platform', values.platform as RunOptions['platform']),
    ...opt('idleMs', positiveInt('idle-ms', values['idle-ms'])),
  };
  const results: BenchResult[] = [];
  let failed = false;
  try {
    for (const name of selected) {
      const bench = benches[name] as (o: RunOptions) => Promise<BenchResult>;
      process.stderr.write(`running ${name} ...\n`);
      try {
        const load = loadavg()[0] ?? Number.NaN;
        const quick = values.quick && run.count === undefined ? { count: QUICK[name] } : {};
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
