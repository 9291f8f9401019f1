import { formatMajor } from '../payments/index.js';
import type { QueueItem } from './types.js';

/**
 * Redacted export of the offline queue for reconciliation (docs/operations.md, "Offline queue commands"): what was sold
 * offline, when, and what the platform made of it. Built from QueueItem, which never
 * holds card data; the masked PAN is the most of the card that appears (docs/architecture.md, "Invariants" 4).
 */
export const EXPORT_COLUMNS = [
  'clientTransactionId',
  'serverTransactionId',
  'merchantId',
  'state',
  'platformStatus',
  'amount',
  'amountMajor',
  'currency',
  'clientDateTime',
  'storedAt',
  'lastTryAt',
  'maskedPan',
  'scheme',
  'entryMode',
  'tries',
  'rejections',
  'message',
  'operator',
] as const;

export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

function major(amount: number, currency: string): string | null {
  try {
    return formatMajor(amount, currency);
  } catch {
    return null;
  }
}

export function exportRow(item: QueueItem): ExportRow {
  return {
    clientTransactionId: item.clientTransactionId,
    serverTransactionId: item.serverTransactionId ?? null,
    merchantId: item.merchantId ?? null,
    state: item.state,
    platformStatus: item.platformStatus ?? null,
    amount: item.amount,
    amountMajor: major(item.amount, item.currency),
    currency: item.currency,
    clientDateTime: item.clientDateTime,
    storedAt: item.storedAt,
    lastTryAt: item.lastTryAt ?? null,
    maskedPan: item.maskedPan ?? null,
    scheme: item.scheme ?? null,
    entryMode: item.entryMode ?? null,
    tries: item.tries,
    rejections: item.rejections,
    message: item.message ?? null,
    operator: item.operator ?? null,
  };
}

/** RFC 4180 field; text starting with = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(items: readonly QueueItem[]): string {
  const lines = [EXPORT_COLUMNS.join(',')];
  for (const item of items) {
    const row = exportRow(item);
    lines.push(EXPORT_COLUMNS.map((c) => csvField(row[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** JSON export: the same columns plus each item's upload history. */
export function toJson(items: readonly QueueItem[], exportedAt: string): string {
  return `${JSON.stringify({ exportedAt, items: items.map((i) => ({ ...exportRow(i), history: i.history })) }, null, 2)}\n`;
}
