import type { BenchResult, BenchRow } from './types.js';

function figure(row: BenchRow): string {
  const v = row.value;
  if (!Number.isFinite(v)) return `n/a ${row.unit}`.trim();
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${row.unit}`.trim();
}

function met(row: BenchRow): string {
  if (row.met === undefined) return '';
  return row.met ? 'yes' : 'NO';
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** The bench's table as plain text: measure, figure, target, met; then params and notes. */
export function formatResult(result: BenchResult): string {
  const header = ['measure', 'figure', 'target', 'met'];
  const cells = result.rows.map((r) => [r.measure, figure(r), r.target ?? '', met(r)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]): string => `  ${c.map((t, i) => pad(t, widths[i] as number)).join('  ')}`.trimEnd();
  const params = Object.entries(result.params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  const out = [
    `${result.name}${params ? `  (${params})` : ''}`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.map(line),
  ];
  for (const note of result.notes) out.push(`  * ${note}`);
  return `${out.join('\n')}\n`;
}

/** "<= 1.5x floor (0.84 ms)" and whether `value` meets it. */
export function withinFactor(
  value: number,
  floor: number,
  factor: number,
  label: string,
  unit: string,
): Pick<BenchRow, 'target' | 'met'> {
  const limit = floor * factor;
  return {
    target: `<= ${factor}x ${label} (${limit.toFixed(2)} ${unit})`,
    met: Number.isFinite(value) && Number.isFinite(limit) && value <= limit,
  };
}
