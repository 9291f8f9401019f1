import { showFailure } from './error-banner.js';
import { byId, el, show } from './dom.js';
import { dateTimeOf, dayOf, moneyIn, t, type TextKey } from './i18n.js';
import type { PageContext } from './page-context.js';
import type { EndOfDay, EndOfDayLine } from './types.js';

type Figure =
  'sales' | 'refunds' | 'cancels' | 'captures' | 'offlinePending' | 'needsAttention' | 'inProgress' | 'notCompleted';

/** The figures in the report's order (docs/receipts.md, "End of day"), money going back shown negative. */
const FIGURES: ReadonlyArray<{ figure: Figure; key: TextKey; back?: boolean }> = [
  { figure: 'sales', key: 'eod.sales' },
  { figure: 'refunds', key: 'eod.refunds', back: true },
  { figure: 'cancels', key: 'eod.cancels', back: true },
  { figure: 'captures', key: 'eod.captures' },
  { figure: 'offlinePending', key: 'eod.offlinePending' },
  { figure: 'needsAttention', key: 'eod.needsAttention' },
  { figure: 'inProgress', key: 'eod.inProgress' },
  { figure: 'notCompleted', key: 'eod.notCompleted' },
];

/** An amount of a report line with the line's own minor digits (a currency the counter no longer offers is still reported). */
function amountOf(minor: number, line: EndOfDayLine): string {
  return moneyIn(minor, line.currency, line.minorDigits);
}

/** A method as the method buttons name it; a wallet by its name. */
const METHOD_WORDS: Readonly<Record<string, TextKey>> = {
  card: 'method.card',
  manual: 'method.keyed',
  moto: 'method.moto',
};
function methodWord(method: string | null): string {
  if (method === null) return '—';
  const key = METHOD_WORDS[method];
  return key === undefined ? method : t(key);
}

function cell(tag: 'td' | 'th', text: string, cls?: string): HTMLTableCellElement {
  return el(tag, cls, text);
}

/** The calendar day `days` from `date` (YYYY-MM-DD): by the calendar, in no zone. */
function shiftDay(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * End of day (#eod): the day's totals per currency from the journal, in the reader's zone
 * (docs/receipts.md, "End of day", "Language and time zone"), for a day the clerk steps to
 * with previous/next day (the day written as the clerk writes it: a browser's date input
 * follows the browser's locale, not the clerk's); then per merchant, method and operator
 * under a heading each, open, with its marker; and the CSV to download. Figures that are
 * zero for the whole day are left out of the per-currency table except sales and net.
 */
export class EndOfDayView {
  /** Today in the report's zone, as the agent answered the first load (the page's own clock may be in another zone). */
  private today: string | undefined;
  /** The day shown or being loaded; undefined: today, asked of the agent. */
  private date: string | undefined;

  constructor(private readonly ctx: PageContext) {}

  init(): void {
    byId('eod-close').addEventListener('click', () => show(byId('eod'), false));
    byId('eod-previous').addEventListener('click', () => this.step(-1));
    byId('eod-next').addEventListener('click', () => this.step(1));
  }

  async open(): Promise<void> {
    this.today = undefined;
    this.date = undefined;
    show(byId('eod'), true);
    await this.load();
  }

  private step(days: number): void {
    if (this.date === undefined) return;
    const next = shiftDay(this.date, days);
    // No day after today: it has nothing yet.
    if (this.today !== undefined && next > this.today) return;
    this.date = next;
    void this.load();
  }

  /** The day's words and which way the clerk can step. */
  private showDay(): void {
    const day = byId('eod-day');
    const date = this.date;
    day.textContent =
      date === undefined ? '' : date === this.today ? t('eod.today', { day: dayOf(date) }) : dayOf(date);
    byId<HTMLButtonElement>('eod-previous').disabled = date === undefined;
    byId<HTMLButtonElement>('eod-next').disabled = date === undefined || this.today === undefined || date >= this.today;
    const csv = byId<HTMLAnchorElement>('eod-csv');
    if (date === undefined) {
      csv.removeAttribute('href');
      return;
    }
    csv.href = `/api/v1/reports/end-of-day?date=${encodeURIComponent(date)}&format=csv`;
    csv.download = `end-of-day-${date}.csv`;
  }

  private async load(): Promise<void> {
    const date = this.date;
    this.showDay();
    const body = byId('eod-body');
    delete byId('eod').dataset.date;
    body.replaceChildren(el('div', 'sheet-note', t('eod.loading')));
    try {
      // Without a day the agent answers today in the reader's zone (receipts.timeZone, the clerk's zoneinfo, api.timeZone).
      const report = await this.ctx.api.endOfDay(date);
      if (this.date !== date) return;
      if (date === undefined) {
        this.today = report.date;
        this.date = report.date;
      }
      this.showDay();
      this.render(report);
      byId('eod').dataset.date = report.date;
    } catch (err) {
      const note = el('div', 'sheet-note error');
      showFailure(note, err, 'eod-error-details');
      body.replaceChildren(note);
    }
  }

  private render(r: EndOfDay): void {
    const body = byId('eod-body');
    const generated = el('div', 'sheet-note', t('eod.generated', { when: dateTimeOf(r.generatedAt) }));
    generated.dataset.testid = 'eod-generated';
    const parts: HTMLElement[] = [el('div', 'sheet-note', t('eod.zone', { zone: r.timeZone })), generated];
    if (r.totals.length === 0) parts.push(el('div', 'sheet-note', t('eod.empty')));
    for (const line of r.totals) parts.push(this.totals(line));
    const groups: Array<[TextKey, Array<[string, EndOfDayLine]>]> = [
      ['eod.byMerchant', r.byMerchant.map((l) => [l.merchantName ?? l.merchantId ?? '—', l])],
      ['eod.byMethod', r.byMethod.map((l) => [methodWord(l.method), l])],
      ['eod.byOperator', r.byOperator.map((l) => [l.operator ?? '—', l])],
    ];
    for (const [key, lines] of groups) if (lines.length > 0) parts.push(this.group(key, lines));
    body.replaceChildren(...parts);
  }

  /** One currency's figures: count and amount each, net last. */
  private totals(line: EndOfDayLine): HTMLElement {
    const table = el('table', 'eod-totals');
    table.dataset.testid = `eod-totals-${line.currency}`;
    table.append(el('caption', '', line.currency));
    for (const f of FIGURES) {
      const fig = line[f.figure];
      if (fig.count === 0 && f.figure !== 'sales') continue;
      const tr = el('tr');
      tr.dataset.figure = f.figure;
      tr.append(
        cell('th', t(f.key)),
        cell('td', String(fig.count), 'num'),
        cell('td', amountOf(f.back === true ? 0 - fig.amount : fig.amount, line), 'num'),
      );
      table.append(tr);
    }
    const net = el('tr', 'net');
    net.dataset.figure = 'net';
    net.append(cell('th', t('eod.net')), cell('td', ''), cell('td', amountOf(line.net, line), 'num'));
    table.append(net);
    return table;
  }

  /** Per merchant, method or operator: sales, money going back and net, one line each; shown open (one glance), closable. */
  private group(key: TextKey, lines: Array<[string, EndOfDayLine]>): HTMLElement {
    const d = el('details', 'eod-group');
    d.open = true;
    d.append(el('summary', '', t(key)));
    const table = el('table', 'eod-lines');
    const head = el('tr');
    head.append(
      cell('th', ''),
      cell('th', t('eod.sales'), 'num'),
      cell('th', t('eod.back'), 'num'),
      cell('th', t('eod.net'), 'num'),
    );
    table.append(head);
    for (const [name, l] of lines) {
      const tr = el('tr');
      tr.append(
        cell('th', name),
        cell('td', `${l.sales.count} · ${amountOf(l.sales.amount, l)}`, 'num'),
        cell('td', amountOf(0 - (l.refunds.amount + l.cancels.amount), l), 'num'),
        cell('td', amountOf(l.net, l), 'num'),
      );
      table.append(tr);
    }
    d.append(table);
    return d;
  }
}
