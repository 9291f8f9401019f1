import { systemClock, type TimeSource } from '../../core/index.js';
import type { Journal, JournalRow } from '../journal/index.js';
import { endOfDay } from './end-of-day.js';
import { buildReceipt } from './receipt-data.js';
import type { EndOfDayQuery, EndOfDayReport, ReceiptData, ReceiptQuery, ReportSources, ReportsApi } from './types.js';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { readerStyle, terminalTimeZone, type ReaderStyle } from './reader-style.js';
import { checkTimeZone, localDate, localDayRange } from './zone-time.js';

export interface ReportServiceDeps {
  journal: Journal;
  sources: ReportSources;
  /**
   * The counter's zone (api.timeZone): receipts' times and the report's day when neither the
   * store nor the clerk names one. Absent: the terminal's own, looked up at the first receipt
   * or report, not at start (a formatter pages in ICU's date data: docs/performance.md, "Memory").
   */
  timeZone?: string;
  /** The counter's locale (api.locale); default en-GB. */
  locale?: string;
  /** The store's own choice (receipts.locale, receipts.timeZone): over any clerk's. */
  store?: Partial<ReaderStyle>;
  clock?: Pick<TimeSource, 'wall'>;
}

/**
 * Receipts and the end-of-day report from the journal (docs/receipts.md). Read-only: it
 * never writes a row and never asks the platform; a transaction only the platform knows
 * has no receipt here. Each is written for its reader (docs/receipts.md, "Language and time
 * zone"): the store's setting, else the asking clerk's claims, else the counter's.
 */
export class ReportService implements ReportsApi {
  private readonly clock: Pick<TimeSource, 'wall'>;

  constructor(private readonly deps: ReportServiceDeps) {
    this.clock = deps.clock ?? systemClock();
    if (deps.timeZone !== undefined) checkTimeZone(deps.timeZone);
  }

  private reader(clerk: ReceiptQuery['clerk']): ReaderStyle {
    return readerStyle(this.deps.store ?? {}, clerk, {
      locale: this.deps.locale ?? 'en-GB',
      timeZone: this.deps.timeZone ?? terminalTimeZone(),
    });
  }

  private row(id: string): JournalRow {
    const row = this.deps.journal.get(id) ?? this.deps.journal.byServerId(id);
    if (row === undefined) {
      throw new AgentError(
        ErrorCodes.PAYMENT_NOT_FOUND,
        `no transaction ${id} in this terminal's journal: a receipt is printed only for a transaction made here`,
      );
    }
    return row;
  }

  receipt(id: string, query: ReceiptQuery = {}): ReceiptData {
    const row = this.row(id);
    const sale =
      row.relatedClientTransactionId !== undefined ? this.deps.journal.get(row.relatedClientTransactionId) : undefined;
    const { locale, timeZone } = this.reader(query.clerk);
    return buildReceipt({
      row,
      ...(sale !== undefined ? { sale } : {}),
      copy: query.copy ?? 'customer',
      merchants: this.deps.sources.merchants(),
      terminalId: this.deps.sources.terminalId(),
      timeZone,
      locale,
    });
  }

  endOfDay(query: EndOfDayQuery = {}): EndOfDayReport {
    const reader = this.reader(query.clerk);
    const timeZone = checkTimeZone(query.timeZone ?? reader.timeZone);
    const now = this.clock.wall();
    const date = query.date ?? localDate(now, timeZone);
    const { from, to } = localDayRange(date, timeZone);
    const rows = this.deps.journal.rowsCreatedBetween(new Date(from).toISOString(), new Date(to).toISOString());
    return endOfDay({
      rows,
      date,
      timeZone,
      from,
      to,
      now,
      merchants: this.deps.sources.merchants(),
      terminalId: this.deps.sources.terminalId(),
      locale: reader.locale,
    });
  }
}
