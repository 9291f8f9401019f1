import { center, pair, printout, rule, wrap } from './printer-layout.js';
import type { PrinterWidth, ReceiptData } from './types.js';

/**
 * A receipt laid out for a 32- or 48-column printer (docs/receipts.md, "Layout"), from the
 * receipt's data alone. The customer and merchant copies differ in their heading, the
 * merchant's notes and the footer.
 */
export function receiptText(r: ReceiptData, width: PrinterWidth): string {
  const lines: string[] = [];
  const add = (...more: string[]): void => {
    lines.push(...more);
  };
  add(...center(r.copy === 'customer' ? 'CUSTOMER COPY' : 'MERCHANT COPY', width));
  add(...center(r.merchant.name, width));
  add('');
  if (r.merchant.id !== null && r.merchant.id !== r.merchant.name) add(...pair('Merchant', r.merchant.id, width));
  if (r.terminalId !== null) add(...pair('Terminal', r.terminalId, width));
  add(...pair('Date', r.dateTime.date, width));
  add(...pair('Time', `${r.dateTime.time} ${r.dateTime.offset}`, width));
  if (r.operator !== null) add(...pair('Operator', r.operator, width));
  add(rule(width));
  add(...center(r.title, width));
  if (r.methodText !== null) add(...pair('Method', r.scenario === null ? r.methodText : `${r.methodText} ${r.scenario}`, width));
  if (r.card !== null) {
    if (r.card.scheme !== null) add(...pair('Card', r.card.scheme, width));
    if (r.card.masked !== null) add(...pair('Number', r.card.masked, width));
    if (r.card.entryModeText !== null) add(...pair('Entry', r.card.entryModeText, width));
  }
  add('');
  add(...pair(r.kind === 'sale' ? 'AMOUNT' : `${r.title} AMOUNT`, `${r.amount.currency} ${r.amount.text}`, width));
  add('');
  if (r.originalSale !== null) {
    add(...pair('Original sale', `${r.originalSale.amount.currency} ${r.originalSale.amount.text}`, width));
    if (r.originalSale.serverTransactionId !== null) add(...pair('Sale server id', r.originalSale.serverTransactionId, width));
    add(...pair('Sale client id', r.originalSale.clientTransactionId, width));
  }
  if (r.serverTransactionId !== null) add(...pair('Server id', r.serverTransactionId, width));
  add(...pair('Client id', r.clientTransactionId, width));
  add(rule(width));
  add(...center(r.outcome.text, width));
  if (r.outcome.detail !== null) add(...center(r.outcome.detail, width));
  if (r.merchantNotes !== null) {
    if (r.merchantNotes.platformStatus !== null) add(...pair('Platform status', r.merchantNotes.platformStatus, width));
    if (r.merchantNotes.message !== null) add(...wrap(`Note: ${r.merchantNotes.message}`, width));
  }
  add(rule(width));
  add(...center(r.footer, width));
  return printout(lines);
}
