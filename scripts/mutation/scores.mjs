// The score of each file in a Stryker JSON report (mutation-testing-report-schema):
// killed + timed out over every mutant that compiled, as Stryker counts it
// ("covered" mutants that no test reaches count as survivors). Ignored mutants do not count.
import { readFileSync } from 'node:fs';

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/**
 * @param {{ files: Record<string, { mutants: { status: string }[] }> }} report
 * @returns {{ file: string, killed: number, survived: number, noCoverage: number, score: number }[]}
 */
export function summarise(report) {
  return Object.entries(report.files)
    .map(([file, { mutants }]) => {
      const count = (/** @type {string} */ s) => mutants.filter((m) => m.status === s).length;
      const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
      const undetected = mutants.filter((m) => UNDETECTED.has(m.status)).length;
      const total = detected + undetected;
      return {
        file,
        killed: detected,
        survived: count('Survived'),
        noCoverage: count('NoCoverage'),
        score: total === 0 ? 100 : (100 * detected) / total,
      };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** @param {ReturnType<typeof summarise>} rows */
export function formatTable(rows) {
  const lines = ['| file | score | killed | survived | no coverage |', '|---|---|---|---|---|'];
  for (const r of rows)
    lines.push(`| ${r.file} | ${r.score.toFixed(1)} % | ${r.killed} | ${r.survived} | ${r.noCoverage} |`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    formatTable(summarise(JSON.parse(readFileSync(process.argv[2] ?? 'reports/mutation/mutation.json', 'utf8')))),
  );
}
