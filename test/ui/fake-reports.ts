import { AgentError, ErrorCodes } from '../../src/core/errors.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import {
  buildReceipt,
  endOfDay,
  hasReceipt,
  type EndOfDayQuery,
  type EndOfDayReport,
  type ReceiptData,
  type ReceiptQuery,
  type ReportsApi,
} from '../../src/payments/receipts/index.js';
import { journalRow, MERCHANTS } from '../payments/receipt-rows.js';

/**
 * Receipts and the end of day for the counter page's layout walk (docs/receipts.md) from
 * rows the test sets: the real receipt and report builders, without a journal. An id it
 * has no row for is an approved card sale (any sale the walk made on the fake payments).
 */
export class FakeReports implements ReportsApi {
  readonly rows = new Map<string, JournalRow>();

  receipt(id: string, query: ReceiptQuery = {}): ReceiptData {
    const row =
      this.rows.get(id) ??
      journalRow({
        clientTransactionId: id,
        createdAt: new Date().toISOString(),
        clientDateTime: new Date().toISOString(),
      });
    if (!hasReceipt(row))
      throw new AgentError(
        ErrorCodes.PAYMENT_STATE,
        `transaction ${id} is ${row.state}, not final yet: its receipt can be printed once it is final`,
      );
    const sale =
      row.relatedClientTransactionId !== undefined ? this.rows.get(row.relatedClientTransactionId) : undefined;
    return buildReceipt({
      row,
      ...(sale ? { sale } : {}),
      copy: query.copy ?? 'customer',
      merchants: MERCHANTS,
      terminalId: 'TA-0001',
      timeZone: 'Europe/Berlin',
    });
  }

  endOfDay(query: EndOfDayQuery = {}): EndOfDayReport {
    const now = Date.now();
    return endOfDay({
      rows: [...this.rows.values()],
      date: query.date ?? new Date(now).toISOString().slice(0, 10),
      timeZone: 'Europe/Berlin',
      from: now - 86_400_000,
      to: now,
      now,
      merchants: MERCHANTS,
      terminalId: 'TA-0001',
    });
  }
}
