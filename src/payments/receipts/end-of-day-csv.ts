import type { EndOfDayFigures, EndOfDayGroup, EndOfDayReport } from './types.js';

/**
 * The end-of-day report as CSV (RFC 4180, CRLF): one line per merchant, method, operator and
 * currency, amounts as integer minor units with the currency's minor digits beside them
 * (docs/receipts.md, "End of day"). Text starting with = + - @ is prefixed with ' so a
 * spreadsheet never runs it as a formula; numbers are written as they are.
 */

const FIGURES = [
  'sales',
  'refunds',
  'cancels',
  'captures',
  'offlinePending',
  'needsAttention',
  'inProgress',
  'notCompleted',
] as const satisfies ReadonlyArray<Exclude<keyof EndOfDayFigures, 'net'>>;

const SNAKE: Record<(typeof FIGURES)[number], string> = {
  sales: 'sales',
  refunds: 'refunds',
  cancels: 'cancels',
  captures: 'captures',
  offlinePending: 'offline_pending',
  needsAttention: 'needs_attention',
  inProgress: 'in_progress',
  notCompleted: 'not_completed',
};

export const END_OF_DAY_CSV_COLUMNS = [
  'date',
  'time_zone',
  'terminal_id',
  'merchant_id',
  'merchant_name',
  'method',
  'operator',
  'currency',
  'minor_digits',
  ...FIGURES.flatMap((f) => [`${SNAKE[f]}_count`, `${SNAKE[f]}_amount_minor`]),
  'net_amount_minor',
] as const;

function field(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function line(report: EndOfDayReport, g: EndOfDayGroup): string {
  const cells: Array<string | number | null> = [
    report.date,
    report.timeZone,
    report.terminalId,
    g.merchantId,
    g.merchantName,
    g.method,
    g.operator,
    g.currency,
    g.minorDigits,
  ];
  for (const f of FIGURES) cells.push(g[f].count, g[f].amount);
  cells.push(g.net);
  return cells.map(field).join(',');
}

export function endOfDayCsv(report: EndOfDayReport): string {
  return `${[END_OF_DAY_CSV_COLUMNS.join(','), ...report.groups.map((g) => line(report, g))].join('\r\n')}\r\n`;
}
