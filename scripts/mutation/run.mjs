// `npm run mutate [-- stryker options]`: StrykerJS with stryker.config.mjs, then the score of
// each mutated file from its JSON report (test/README.md, "Mutation testing").
// Plain JavaScript so it runs without a build.
//
// A run narrowed to some files (`-- --mutate src/payments/rules.ts`) keeps its own
// incremental file, so narrowed runs of different files never throw away each other's
// results; every run's per-file scores are kept in reports/mutation/scores.json and the
// table printed at the end shows the latest figure of every file measured so far.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { formatTable, summarise } from './scores.mjs';

const DIR = 'reports/mutation';
const REPORT = `${DIR}/mutation.json`;
const SCORES = `${DIR}/scores.json`;
const require = createRequire(import.meta.url);
// The package exports no bin path: find it next to its package.json.
const stryker = join(dirname(require.resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js');

const args = process.argv.slice(2);
const mutateAt = args.findIndex((a) => a === '--mutate' || a === '-m');
if (mutateAt >= 0 && args[mutateAt + 1] !== undefined && !args.includes('--incrementalFile')) {
  const key = args[mutateAt + 1].replace(/[^A-Za-z0-9.-]+/g, '_');
  args.push('--incrementalFile', `${DIR}/incremental/${key}.json`);
}

const run = spawnSync(process.execPath, [stryker, 'run', ...args], { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
if (!existsSync(REPORT)) {
  console.error(`no report at ${REPORT}: check the "jsonReporter" setting in stryker.config.mjs`);
  process.exit(1);
}
const rows = summarise(JSON.parse(readFileSync(REPORT, 'utf8')));
mkdirSync(DIR, { recursive: true });
const kept = existsSync(SCORES) ? JSON.parse(readFileSync(SCORES, 'utf8')) : {};
for (const r of rows) kept[r.file] = r;
writeFileSync(SCORES, `${JSON.stringify(kept, null, 2)}\n`);

console.log(`\nMutation score per file, this run (${REPORT}):\n`);
console.log(formatTable(rows));
if (Object.keys(kept).length > rows.length) {
  console.log(`\nLatest score of every file measured (${SCORES}):\n`);
  console.log(formatTable(Object.values(kept).sort((a, b) => a.file.localeCompare(b.file))));
}
