import { AgentError, ErrorCodes } from '../../core/index.js';
import type { SaleMethod } from '../api.js';
import { FINAL_STATES, type JournalRow } from '../journal/index.js';
import { formatMajor, minorDigits } from '../money.js';
import { merchantOf } from './merchant-name.js';
import type { ReceiptAmount, ReceiptCopy, ReceiptData, ReceiptMerchant, ReceiptOutcomeCode } from './types.js';
import { localTime } from './zone-time.js';

/**
 * A receipt from journal rows (docs/receipts.md, "Receipts"). Pure: the rows, the merchants,
 * the terminal id and the zone come in. Card data: the last four digits of the masked PAN
 * the reader gave, nothing else (the journal's encrypted card data is never read here).
 */

export interface ReceiptInput {
  row: JournalRow;
  /** The sale a capture, cancel or refund acts on. */
  sale?: JournalRow;
  copy: ReceiptCopy;
  merchants: readonly ReceiptMerchant[];
  terminalId: string | undefined;
  timeZone: string;
}

export function receiptAmount(minor: number, currency: string): ReceiptAmount {
  return { minor, currency, minorDigits: minorDigits(currency), text: formatMajor(minor, currency) };
}

const METHOD_TEXT: Record<SaleMethod, string> = { card: 'Card', manual: 'Manual entry', moto: 'MOTO', walletA: 'walletA', walletB: 'walletB' };

const ENTRY_MODE_TEXT: Record<string, string> = { ContactChip: 'Chip', ContactlessChip: 'Contactless', Magstripe: 'Swiped', Keyed: 'Keyed' };

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

function title(row: JournalRow): string {
  switch (row.kind) {
    case 'sale':
      return 'SALE';
    case 'refund':
      return 'REFUND';
    case 'capture':
      return 'CAPTURE';
    case 'cancel':
      return row.cancelReason === 'Technical' ? 'REVERSAL' : 'CANCELLATION';
  }
}

function outcomeOf(row: JournalRow): { code: ReceiptOutcomeCode; text: string; detail: string | null } {
  const sale = row.kind === 'sale';
  switch (row.state) {
    case 'approved':
      // A done operation says what was done, not "approved" (as the counter page words it).
      if (row.kind === 'refund') return { code: 'approved', text: 'REFUNDED', detail: 'The amount goes back to the card or wallet' };
      if (row.kind === 'cancel') return { code: 'approved', text: row.cancelReason === 'Technical' ? 'REVERSED' : 'CANCELLED', detail: 'The amount is not charged' };
      if (row.kind === 'capture') return { code: 'approved', text: 'CAPTURED', detail: null };
      return row.offline ? { code: 'approved_offline', text: 'APPROVED', detail: 'Approved offline' } : { code: 'approved', text: 'APPROVED', detail: null };
    case 'offline_stored':
      return { code: 'approved_offline', text: 'APPROVED', detail: 'Approved offline, sent to the platform later' };
    case 'declined':
      return { code: 'declined', text: 'DECLINED', detail: sale ? 'Nothing was charged' : 'Not done' };
    case 'failed':
      return { code: 'not_completed', text: 'NOT COMPLETED', detail: sale ? 'Nothing was charged' : 'Not done' };
    case 'cancelled':
      // True whether it was charged and given back in full or voided before (a QR voided while shown): the journal cannot tell which.
      return { code: 'cancelled', text: 'CANCELLED', detail: 'Nothing is charged' };
    case 'reversed':
      return { code: 'reversed', text: 'REVERSED', detail: 'Nothing is charged' };
    default:
      // needs_attention: the agent cannot settle it alone.
      return { code: 'check_needed', text: 'NOT CONFIRMED', detail: 'Staff must check this payment' };
  }
}

export function buildReceipt(input: ReceiptInput): ReceiptData {
  const { row, copy } = input;
  if (!hasReceipt(row)) {
    throw new AgentError(ErrorCodes.PAYMENT_STATE, `transaction ${row.clientTransactionId} is ${row.state}, not final yet: its receipt can be printed once it is final`, {
      details: { clientTransactionId: row.clientTransactionId, state: row.state },
    });
  }
  const cardSource = row.kind === 'sale' ? row : input.sale;
  const method = row.method ?? input.sale?.method ?? null;
  const at = Date.parse(row.clientDateTime);
  const when = localTime(Number.isNaN(at) ? Date.parse(row.createdAt) : at, input.timeZone);
  const last4 = lastFour(cardSource?.maskedPan);
  const isCard = method === 'card' || method === 'manual' || method === 'moto';
  const outcome = outcomeOf(row);
  const merchant = merchantOf(row.merchantId ?? input.sale?.merchantId, input.merchants);
  const entryMode = cardSource?.entryMode ?? null;
  return {
    copy,
    kind: row.kind,
    title: title(row),
    // The platform's merchant id when known (what the acquirer's statements name), else the client id.
    merchant: { name: merchant.name ?? 'Merchant', id: merchant.platformId ?? merchant.id },
    terminalId: input.terminalId ?? null,
    operator: row.operator ?? null,
    dateTime: { local: when.iso, date: when.date, time: when.time, offset: when.offset, timeZone: input.timeZone, utc: new Date(Number.isNaN(at) ? Date.parse(row.createdAt) : at).toISOString() },
    amount: receiptAmount(row.amount, row.currency),
    method,
    methodText: method === null ? null : METHOD_TEXT[method],
    scenario: row.scenario ?? input.sale?.scenario ?? null,
    card:
      isCard && cardSource !== undefined && (last4 !== null || cardSource.scheme !== undefined)
        ? { scheme: cardSource.scheme ?? null, last4, masked: last4 === null ? null : `**** ${last4}`, entryMode, entryModeText: entryMode === null ? null : (ENTRY_MODE_TEXT[entryMode] ?? entryMode) }
        : null,
    serverTransactionId: row.serverTransactionId ?? null,
    clientTransactionId: row.clientTransactionId,
    originalSale:
      row.kind !== 'sale' && input.sale !== undefined
        ? { serverTransactionId: input.sale.serverTransactionId ?? null, clientTransactionId: input.sale.clientTransactionId, amount: receiptAmount(input.sale.amount, input.sale.currency) }
        : null,
    offline: row.offline || row.state === 'offline_stored',
    outcome: { state: row.state, ...outcome },
    merchantNotes: copy === 'merchant' ? { message: row.message ?? null, platformStatus: row.platformStatus ?? null } : null,
    footer: copy === 'customer' ? 'Please keep this receipt' : 'Keep for your records',
  };
}
