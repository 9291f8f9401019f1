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

/** Rows per chunk a streamed export yields (one write each). */
export const EXPORT_CHUNK_ROWS = 500;

/**
 * The CSV export in chunks of EXPORT_CHUNK_ROWS lines, reading `items` as it goes: with
 * OfflineQueue.iterate a queue of any length is exported in bounded memory.
 */
export function* csvChunks(items: Iterable<QueueItem>, rowsPerChunk = EXPORT_CHUNK_ROWS): Generator<string> {
  let lines = [EXPORT_COLUMNS.join(',')];
  for (const item of items) {
    const row = exportRow(item);
    lines.push(EXPORT_COLUMNS.map((c) => csvField(row[c])).join(','));
    if (lines.length >= rowsPerChunk) {
      yield `${lines.join('\r\n')}\r\n`;
      lines = [];
    }
  }
  if (lines.length > 0) yield `${lines.join('\r\n')}\r\n`;
}

export function toCsv(items: readonly QueueItem[]): string {
  return [...csvChunks(items)].join('');
}

/** Indents every line of a JSON.stringify(…, null, 2) text by `pad`, as it sits inside the document. */
function indented(json: string, pad: string): string {
  return `${pad}${json.replace(/\n/g, `\n${pad}`)}`;
}

/**
 * The JSON export in chunks, reading `items` as it goes; byte for byte what
 * `JSON.stringify({ exportedAt, items }, null, 2)` writes (toJson), without holding it.
 */
export function* jsonChunks(
  items: Iterable<QueueItem>,
  exportedAt: string,
  rowsPerChunk = EXPORT_CHUNK_ROWS,
): Generator<string> {
  const head = `{\n  "exportedAt": ${JSON.stringify(exportedAt)},\n  "items": [`;
  let parts: string[] = [];
  let first = true;
  for (const i of items) {
    parts.push(
      `${first ? head : ','}\n${indented(JSON.stringify({ ...exportRow(i), history: i.history }, null, 2), '    ')}`,
    );
    first = false;
    if (parts.length >= rowsPerChunk) {
      yield parts.join('');
      parts = [];
    }
  }
  parts.push(first ? `${head}]\n}\n` : '\n  ]\n}\n');
  yield parts.join('');
}

/** JSON export: the same columns plus each item's upload history. */
export function toJson(items: readonly QueueItem[], exportedAt: string): string {
  return [...jsonChunks(items, exportedAt)].join('');
}
