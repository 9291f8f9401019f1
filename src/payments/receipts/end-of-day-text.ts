import { center, columns, pair, printout, rule, wrap } from './printer-layout.js';
import { amountIn } from './reader-style.js';
import { receiptWords, type ReceiptWords } from './receipt-words.js';
import type { EndOfDayFigures, EndOfDayLine, EndOfDayReport, PrinterWidth } from './types.js';
import { readerTime } from './zone-time.js';

/**
 * The end-of-day report laid out for a 32- or 48-column printer (docs/receipts.md, "End of
 * day"): the day and its zone, the totals per currency with every figure, then each
 * merchant, method and operator with the figures that are not zero. Money going back
 * (refunds, cancels) is shown negative; net is sales less both. Words, dates and amounts
 * are the report's locale's, times the zone's with its name (docs/receipts.md, "Language
 * and time zone").
 */

const FIGURES: Array<[Exclude<keyof EndOfDayFigures, 'net'>, 1 | -1]> = [
  ['sales', 1],
  ['refunds', -1],
  ['cancels', -1],
  ['captures', 1],
  ['offlinePending', 1],
  ['needsAttention', 1],
  ['inProgress', 1],
  ['notCompleted', 1],
];

/** The words and the locale a report is written in. */
interface Reader {
  w: ReceiptWords;
  locale: string;
}

function money(minor: number, line: EndOfDayLine, reader: Reader): string {
  return amountIn(minor, line.currency, reader.locale);
}

/** An instant as the reader reads it, to the minute, with the zone's name: "28.11.2026 21:05 MEZ". */
function when(iso: string, r: EndOfDayReport): string {
  const t = readerTime(Date.parse(iso), r.timeZone, r.locale);
  return `${t.date} ${t.time.slice(0, 5)} ${t.zone}`;
}

/** Count and amount columns: at 32 the longest label (15) still fits beside a 4-digit count and an 11-character amount. */
function columnWidths(width: number): number[] {
  return width >= 48 ? [5, 16] : [4, 11];
}

function figureLines(line: EndOfDayLine, width: number, all: boolean, reader: Reader): string[] {
  const { w } = reader;
  const out: string[] = [];
  const widths = columnWidths(width);
  for (const [name, sign] of FIGURES) {
    const f = line[name];
    if (!all && f.count === 0) continue;
    out.push(...columns(w.eod.figures[name], [String(f.count), money(sign * f.amount, line, reader)], widths, width));
  }
  out.push(...columns(w.eod.net, ['', money(line.net, line, reader)], widths, width));
  return out;
}

/** A heading per line: its name on the left (wrapped when long), the currency on the right. */
function section(
  title: string,
  lines: readonly EndOfDayLine[],
  heading: (l: EndOfDayLine) => string[],
  width: number,
  reader: Reader,
): string[] {
  if (lines.length === 0) return [];
  const out: string[] = [rule(width), ...center(title, width)];
  for (const l of lines) {
    const names = heading(l);
    const last = names.pop() ?? '';
    out.push('', ...names.flatMap((n) => wrap(n, width)), ...pair(last, l.currency, width));
    out.push(...figureLines(l, width, false, reader));
  }
  return out;
}

export function endOfDayText(r: EndOfDayReport, width: PrinterWidth): string {
  const w = receiptWords(r.locale);
  const reader: Reader = { w, locale: r.locale };
  const lines: string[] = [...center(w.eod.title, width)];
  if (r.terminalId !== null) lines.push(...pair(w.terminal, r.terminalId, width));
  const day = readerTime(Date.parse(`${r.date}T12:00:00Z`), 'UTC', r.locale).date;
  lines.push(...pair(w.eod.day, day, width), ...pair(w.eod.timeZone, r.timeZone, width));
  // To the minute with the zone's name: a day with a clock change starts and ends under different names.
  lines.push(...pair(w.eod.from, when(r.from, r), width), ...pair(w.eod.to, when(r.to, r), width));
  lines.push(...pair(w.eod.printed, when(r.generatedAt, r), width));
  lines.push(rule(width, '='));
  if (r.totals.length === 0) lines.push(...center(w.eod.none, width));
  const widths = columnWidths(width);
  for (const t of r.totals) {
    lines.push(
      ...wrap(`${w.eod.total} ${t.currency}`, width),
      ...columns('', [w.eod.count, w.eod.amountColumn], widths, width),
      ...figureLines(t, width, true, reader),
      '',
    );
  }
  lines.push(
    ...section(
      w.eod.byMerchant,
      r.byMerchant,
      (l) => {
        const m = l as EndOfDayReport['byMerchant'][number];
        if (m.merchantName === null) return [w.eod.defaultMerchant];
        return m.merchantId !== null && m.merchantId !== m.merchantName
          ? [m.merchantName, m.merchantId]
          : [m.merchantName];
      },
      width,
      reader,
    ),
  );
  lines.push(
    ...section(
      w.eod.byMethod,
      r.byMethod,
      (l) => {
        const method = (l as EndOfDayReport['byMethod'][number]).method;
        return [method === null ? w.eod.otherMethod : w.methods[method]];
      },
      width,
      reader,
    ),
  );
  lines.push(
    ...section(
      w.eod.byOperator,
      r.byOperator,
      (l) => [(l as EndOfDayReport['byOperator'][number]).operator ?? w.eod.unknownOperator],
      width,
      reader,
    ),
  );
  lines.push(rule(width, '='));
  return printout(lines);
}
