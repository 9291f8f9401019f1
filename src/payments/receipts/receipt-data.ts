import { AgentError, ErrorCodes } from '../../core/index.js';
import { FINAL_STATES, type JournalRow } from '../journal/index.js';
import { formatMajor, minorDigits } from '../money.js';
import { merchantOf } from './merchant-name.js';
import type { ReceiptAmount, ReceiptCopy, ReceiptData, ReceiptMerchant, ReceiptOutcomeCode } from './types.js';
import { receiptWords, type ReceiptWords } from './receipt-words.js';
import { localTime, readerTime } from './zone-time.js';

/**
 * A receipt from journal rows (docs/receipts.md, "Receipts"). Pure: the rows, the merchants,
 * the terminal id, the zone and the reader's locale come in; the words are the locale's
 * (receipt-words.ts), the ids, codes and machine times stay as they are. Card data: the
 * last four digits of the masked PAN the reader gave, nothing else (the journal's
 * encrypted card data is never read here).
 */

export interface ReceiptInput {
  row: JournalRow;
  /** The sale a capture, cancel or refund acts on. */
  sale?: JournalRow;
  copy: ReceiptCopy;
  merchants: readonly ReceiptMerchant[];
  terminalId: string | undefined;
  timeZone: string;
  /** The reader's locale (docs/receipts.md, "Language and time zone"); default en-GB. */
  locale?: string;
}

export function receiptAmount(minor: number, currency: string): ReceiptAmount {
  return { minor, currency, minorDigits: minorDigits(currency), text: formatMajor(minor, currency) };
}

/** The last four digits of a masked PAN, or null: never more of the card number (docs/receipts.md, "Card data"). */
export function lastFour(maskedPan: string | undefined): string | null {
  if (maskedPan === undefined) return null;
  const m = /([0-9]{4})$/.exec(maskedPan.trim());
  return m === null ? null : (m[1] ?? null);
}

/** Offline receipts count as final: the customer was told approved and leaves with the goods. */
export function hasReceipt(row: Pick<JournalRow, 'state'>): boolean {
  return FINAL_STATES.has(row.state) || row.state === 'offline_stored';
}

function title(row: JournalRow, w: ReceiptWords): string {
  switch (row.kind) {
    case 'sale':
      return w.titles.sale;
    case 'refund':
      return w.titles.refund;
    case 'capture':
      return w.titles.capture;
    case 'cancel':
      return row.cancelReason === 'Technical' ? w.titles.reversal : w.titles.cancel;
  }
}

function outcomeOf(
  row: JournalRow,
  w: ReceiptWords,
): { code: ReceiptOutcomeCode; text: string; detail: string | null } {
  const sale = row.kind === 'sale';
  const o = w.outcomes;
  const d = w.details;
  switch (row.state) {
    case 'approved':
      // A done operation says what was done, not "approved" (as the counter page words it).
      if (row.kind === 'refund') return { code: 'approved', text: o.refunded, detail: d.refunded };
      if (row.kind === 'cancel')
        return {
          code: 'approved',
          text: row.cancelReason === 'Technical' ? o.reversed : o.cancelled,
          detail: d.notCharged,
        };
      if (row.kind === 'capture') return { code: 'approved', text: o.captured, detail: null };
      return row.offline
        ? { code: 'approved_offline', text: o.approved, detail: d.approvedOffline }
        : { code: 'approved', text: o.approved, detail: null };
    case 'offline_stored':
      return { code: 'approved_offline', text: o.approved, detail: d.storedOffline };
    case 'declined':
      return { code: 'declined', text: o.declined, detail: sale ? d.nothingCharged : d.notDone };
    case 'failed':
      return { code: 'not_completed', text: o.notCompleted, detail: sale ? d.nothingCharged : d.notDone };
    case 'cancelled':
      // True whether it was charged and given back in full or voided before (a QR voided while shown): the journal cannot tell which.
      return { code: 'cancelled', text: o.cancelled, detail: d.nothingIsCharged };
    case 'reversed':
      return { code: 'reversed', text: o.reversed, detail: d.nothingIsCharged };
    default:
      // needs_attention: the agent cannot settle it alone.
      return { code: 'check_needed', text: o.notConfirmed, detail: d.staffCheck };
  }
}

export function buildReceipt(input: ReceiptInput): ReceiptData {
  const { row, copy } = input;
  if (!hasReceipt(row)) {
    throw new AgentError(
      ErrorCodes.PAYMENT_STATE,
      `transaction ${row.clientTransactionId} is ${row.state}, not final yet: its receipt can be printed once it is final`,
      {
        details: { clientTransactionId: row.clientTransactionId, state: row.state },
      },
    );
  }
  const cardSource = row.kind === 'sale' ? row : input.sale;
  const method = row.method ?? input.sale?.method ?? null;
  const locale = input.locale ?? 'en-GB';
  const w = receiptWords(locale);
  const parsed = Date.parse(row.clientDateTime);
  const at = Number.isNaN(parsed) ? Date.parse(row.createdAt) : parsed;
  const when = localTime(at, input.timeZone);
  const read = readerTime(at, input.timeZone, locale);
  const last4 = lastFour(cardSource?.maskedPan);
  const isCard = method === 'card' || method === 'manual' || method === 'moto';
  const outcome = outcomeOf(row, w);
  const merchant = merchantOf(row.merchantId ?? input.sale?.merchantId, input.merchants);
  const entryMode = cardSource?.entryMode ?? null;
  return {
    copy,
    kind: row.kind,
    locale,
    title: title(row, w),
    // The platform's merchant id when known (what the acquirer's statements name), else the client id.
    merchant: { name: merchant.name ?? w.merchantFallback, id: merchant.platformId ?? merchant.id },
    terminalId: input.terminalId ?? null,
    operator: row.operator ?? null,
    dateTime: {
      local: when.iso,
      date: when.date,
      time: when.time,
      offset: when.offset,
      timeZone: input.timeZone,
      utc: new Date(at).toISOString(),
      dateText: read.date,
      timeText: read.time,
      zoneName: read.zone,
    },
    amount: receiptAmount(row.amount, row.currency),
    method,
    methodText: method === null ? null : w.methods[method],
    scenario: row.scenario ?? input.sale?.scenario ?? null,
    card:
      isCard && cardSource !== undefined && (last4 !== null || cardSource.scheme !== undefined)
        ? {
            scheme: cardSource.scheme ?? null,
            last4,
            masked: last4 === null ? null : `**** ${last4}`,
            entryMode,
            entryModeText: entryMode === null ? null : (w.entryModes[entryMode] ?? entryMode),
          }
        : null,
    serverTransactionId: row.serverTransactionId ?? null,
    clientTransactionId: row.clientTransactionId,
    originalSale:
      row.kind !== 'sale' && input.sale !== undefined
        ? {
            serverTransactionId: input.sale.serverTransactionId ?? null,
            clientTransactionId: input.sale.clientTransactionId,
            amount: receiptAmount(input.sale.amount, input.sale.currency),
          }
        : null,
    offline: row.offline || row.state === 'offline_stored',
    outcome: { state: row.state, ...outcome },
    merchantNotes:
      copy === 'merchant' ? { message: row.message ?? null, platformStatus: row.platformStatus ?? null } : null,
    footer: copy === 'customer' ? w.footers.customer : w.footers.merchant,
  };
}
