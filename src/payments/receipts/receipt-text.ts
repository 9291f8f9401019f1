import { center, pair, printout, rule, wrap } from './printer-layout.js';
import { amountIn } from './reader-style.js';
import { receiptWords } from './receipt-words.js';
import type { PrinterWidth, ReceiptData } from './types.js';

/**
 * A receipt laid out for a 32- or 48-column printer (docs/receipts.md, "Layout"), from the
 * receipt's data alone. The customer and merchant copies differ in their heading, the
 * merchant's notes and the footer. Labels are the receipt's locale's (receipt-words.ts),
 * the time is the reader's 24 h time with the zone's name, amounts in the locale's digits.
 */
export function receiptText(r: ReceiptData, width: PrinterWidth): string {
  const lines: string[] = [];
  const add = (...more: string[]): void => {
    lines.push(...more);
  };
  const w = receiptWords(r.locale);
  const money = (a: ReceiptData['amount']): string => `${a.currency} ${amountIn(a.minor, a.currency, r.locale)}`;
  add(...center(r.copy === 'customer' ? w.customerCopy : w.merchantCopy, width));
  add(...center(r.merchant.name, width));
  add('');
  if (r.merchant.id !== null && r.merchant.id !== r.merchant.name) add(...pair(w.merchant, r.merchant.id, width));
  if (r.terminalId !== null) add(...pair(w.terminal, r.terminalId, width));
  add(...pair(w.date, r.dateTime.dateText, width));
  // The zone's name, not an offset: it tells the repeated hour apart too (docs/receipts.md, "Language and time zone").
  add(...pair(w.time, `${r.dateTime.timeText} ${r.dateTime.zoneName}`, width));
  if (r.operator !== null) add(...pair(w.operator, r.operator, width));
  add(rule(width));
  add(...center(r.title, width));
  if (r.methodText !== null)
    add(...pair(w.method, r.scenario === null ? r.methodText : `${r.methodText} ${r.scenario}`, width));
  if (r.card !== null) {
    if (r.card.scheme !== null) add(...pair(w.card, r.card.scheme, width));
    if (r.card.masked !== null) add(...pair(w.number, r.card.masked, width));
    if (r.card.entryModeText !== null) add(...pair(w.entry, r.card.entryModeText, width));
  }
  add('');
  add(...pair(w.amount(r.title, r.kind === 'sale'), money(r.amount), width));
  add('');
  if (r.originalSale !== null) {
    add(...pair(w.originalSale, money(r.originalSale.amount), width));
    if (r.originalSale.serverTransactionId !== null)
      add(...pair(w.saleServerId, r.originalSale.serverTransactionId, width));
    add(...pair(w.saleClientId, r.originalSale.clientTransactionId, width));
  }
  if (r.serverTransactionId !== null) add(...pair(w.serverId, r.serverTransactionId, width));
  add(...pair(w.clientId, r.clientTransactionId, width));
  add(rule(width));
  add(...center(r.outcome.text, width));
  if (r.outcome.detail !== null) add(...center(r.outcome.detail, width));
  if (r.merchantNotes !== null) {
    if (r.merchantNotes.platformStatus !== null) add(...pair(w.platformStatus, r.merchantNotes.platformStatus, width));
    if (r.merchantNotes.message !== null) add(...wrap(`${w.note}: ${r.merchantNotes.message}`, width));
  }
  add(rule(width));
  add(...center(r.footer, width));
  return printout(lines);
}
