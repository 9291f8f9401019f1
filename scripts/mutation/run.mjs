// `npm run mutate [-- stryker options]`: StrykerJS with stryker.config.mjs, then the score of
// each mutated file from its JSON report (test/README.md, "Mutation testing").
// Plain JavaScript so it runs without a build.
//
// Without `--mutate`, it runs one Stryker run per group of scripts/mutation/groups.mjs, each
// with only its group's tests (MUTATION_GROUP, read by vitest.mutation.config.ts), so a
// static mutant runs the tests that can notice it rather than every test of the set. Each
// group keeps its own incremental file and its own report under reports/mutation/groups/.
// `--group NAME` runs one group. A run narrowed to some files (`-- --mutate
// src/payments/rules.ts`) runs once with every group's tests and keeps its own incremental
// file. Every run's per-file scores are kept in reports/mutation/scores.json; the table
// printed at the end shows this run's files and then the latest figure of every file measured.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GROUPS, groupNamed } from './groups.mjs';
import { formatTable, summarise } from './scores.mjs';

const DIR = 'reports/mutation';
const REPORT = `${DIR}/mutation.json`;
const HTML = `${DIR}/mutation.html`;
const SCORES = `${DIR}/scores.json`;
const require = createRequire(import.meta.url);
// The package exports no bin path: find it next to its package.json.
const stryker = join(dirname(require.resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js');

/** @param {string} name */
const fileKey = (name) => name.replace(/[^A-Za-z0-9.-]+/g, '_');

/**
 * One Stryker run; returns the per-file rows of its report.
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
function strykerRun(args, env) {
  rmSync(REPORT, { force: true });
  const run = spawnSync(process.execPath, [stryker, 'run', ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
  if (!existsSync(REPORT)) {
    console.error(`no report at ${REPORT}: check the "jsonReporter" setting in stryker.config.mjs`);
    process.exit(1);
  }
  return summarise(JSON.parse(readFileSync(REPORT, 'utf8')));
}

const args = process.argv.slice(2);
const groupAt = args.indexOf('--group');
const onlyGroup = groupAt >= 0 ? args.splice(groupAt, 2)[1] : undefined;
const mutateAt = args.findIndex((a) => a === '--mutate' || a === '-m');

/** @type {ReturnType<typeof summarise>} */
const rows = [];
if (mutateAt >= 0) {
  if (args[mutateAt + 1] !== undefined && !args.includes('--incrementalFile')) {
    args.push('--incrementalFile', `${DIR}/incremental/${fileKey(args[mutateAt + 1])}.json`);
  }
  rows.push(...strykerRun(args, {}));
} else {
  const groups = onlyGroup === undefined ? GROUPS : [groupNamed(onlyGroup)];
  mkdirSync(`${DIR}/groups`, { recursive: true });
  for (const group of groups) {
    console.log(`\n== mutation group "${group.name}": ${group.mutate.join(', ')}\n`);
    const groupArgs = [
      ...args,
      '--mutate',
      group.mutate.join(','),
      '--incrementalFile',
      `${DIR}/groups/${group.name}-incremental.json`,
    ];
    rows.push(...strykerRun(groupArgs, { MUTATION_GROUP: group.name }));
    copyFileSync(REPORT, `${DIR}/groups/${group.name}.json`);
    if (existsSync(HTML)) copyFileSync(HTML, `${DIR}/groups/${group.name}.html`);
  }
}

mkdirSync(DIR, { recursive: true });
const kept = existsSync(SCORES) ? JSON.parse(readFileSync(SCORES, 'utf8')) : {};
for (const r of rows) kept[r.file] = r;
writeFileSync(SCORES, `${JSON.stringify(kept, null, 2)}\n`);

rows.sort((a, b) => a.file.localeCompare(b.file));
console.log(`\nMutation score per file, this run (reports under ${DIR}/):\n`);
console.log(formatTable(rows));
if (Object.keys(kept).length > rows.length) {
  console.log(`\nLatest score of every file measured (${SCORES}):\n`);
  console.log(formatTable(Object.values(kept).sort((a, b) => a.file.localeCompare(b.file))));
}
