import { formatMajor } from '../money.js';
import { center, columns, pair, printout, rule, wrap } from './printer-layout.js';
import type { EndOfDayFigures, EndOfDayLine, EndOfDayReport, PrinterWidth } from './types.js';

/**
 * The end-of-day report laid out for a 32- or 48-column printer (docs/receipts.md, "End of
 * day"): the day and its zone, the totals per currency with every figure, then each
 * merchant, method and operator with the figures that are not zero. Money going back
 * (refunds, cancels) is shown negative; net is sales less both.
 */

const LABELS: Array<[Exclude<keyof EndOfDayFigures, 'net'>, string, 1 | -1]> = [
  ['sales', 'Sales', 1],
  ['refunds', 'Refunds', -1],
  ['cancels', 'Cancels', -1],
  ['captures', 'Captures', 1],
  ['offlinePending', 'Offline pending', 1],
  ['needsAttention', 'Needs attention', 1],
  ['inProgress', 'In progress', 1],
  ['notCompleted', 'Not completed', 1],
];

function money(minor: number, line: EndOfDayLine): string {
  try {
    return formatMajor(minor, line.currency);
  } catch {
    return String(minor);
  }
}

/** Count and amount columns: at 32 the longest label (15) still fits beside a 4-digit count and an 11-character amount. */
function columnWidths(width: number): number[] {
  return width >= 48 ? [5, 16] : [4, 11];
}

function figureLines(line: EndOfDayLine, width: number, all: boolean): string[] {
  const out: string[] = [];
  const widths = columnWidths(width);
  for (const [name, label, sign] of LABELS) {
    const f = line[name];
    if (!all && f.count === 0) continue;
    out.push(...columns(label, [String(f.count), money(sign * f.amount, line)], widths, width));
  }
  out.push(...columns('Net', ['', money(line.net, line)], widths, width));
  return out;
}

/** A heading per line: its name on the left (wrapped when long), the currency on the right. */
function section(title: string, lines: readonly EndOfDayLine[], heading: (l: EndOfDayLine) => string[], width: number): string[] {
  if (lines.length === 0) return [];
  const out: string[] = [rule(width), ...center(title, width)];
  for (const l of lines) {
    const names = heading(l);
    const last = names.pop() ?? '';
    out.push('', ...names.flatMap((n) => wrap(n, width)), ...pair(last, l.currency, width));
    out.push(...figureLines(l, width, false));
  }
  return out;
}

export function endOfDayText(r: EndOfDayReport, width: PrinterWidth): string {
  const lines: string[] = [...center('END OF DAY', width)];
  if (r.terminalId !== null) lines.push(...pair('Terminal', r.terminalId, width));
  lines.push(...pair('Day', r.date, width), ...pair('Time zone', r.timeZone, width));
  lines.push(...pair('From', r.fromLocal.replace('T', ' '), width), ...pair('To', r.toLocal.replace('T', ' '), width));
  // Printed to the minute: with its offset it fits 32 columns.
  lines.push(...pair('Printed', r.generatedAtLocal.replace('T', ' ').replace(/:\d\d([+-])/, '$1'), width));
  lines.push(rule(width, '='));
  if (r.totals.length === 0) lines.push(...center('No transactions', width));
  const widths = columnWidths(width);
  for (const t of r.totals) {
    lines.push(...wrap(`TOTAL ${t.currency}`, width), ...columns('', ['count', 'amount'], widths, width), ...figureLines(t, width, true), '');
  }
  lines.push(
    ...section('BY MERCHANT', r.byMerchant, (l) => {
      const m = l as EndOfDayReport['byMerchant'][number];
      if (m.merchantName === null) return ['Default merchant'];
      return m.merchantId !== null && m.merchantId !== m.merchantName ? [m.merchantName, m.merchantId] : [m.merchantName];
    }, width),
  );
  lines.push(...section('BY METHOD', r.byMethod, (l) => [(l as EndOfDayReport['byMethod'][number]).method ?? 'Other'], width));
  lines.push(...section('BY OPERATOR', r.byOperator, (l) => [(l as EndOfDayReport['byOperator'][number]).operator ?? 'Unknown operator'], width));
  lines.push(rule(width, '='));
  return printout(lines);
}
