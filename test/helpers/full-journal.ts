import type { PaymentsPlatform } from '../../src/payments/index.js';
import type { Journal } from '../../src/payments/journal/index.js';

/**
 * A journal that cannot write (docs/journal.md, "Journal", writes that fail), made
 * real with SQLite's own limit: the journal's connection may not grow the file
 * (`PRAGMA max_page_count` at its current size) and its pages are packed with finished
 * rows, so the next write that needs room fails with SQLITE_FULL.
 */
export function fillJournal(journal: Journal): void {
  const db = journal.db;
  const pages = Number(db.pragma('page_count', { simple: true }));
  db.pragma(`max_page_count = ${pages}`);
  const insert = db.prepare(
    "INSERT INTO transactions (client_id, kind, amount, currency, state, client_date_time, created_at, updated_at, message) VALUES (?, 'sale', 1, 'EUR', 'failed', '2026-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z', ?)",
  );
  let n = 0;
  for (const size of [1000, 300, 100, 30, 1]) {
    for (;;) {
      try {
        insert.run(`filler-${n++}`, 'x'.repeat(size));
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_FULL') throw err;
        break;
      }
    }
  }
}

/** The journal may grow again (an operator freed space). */
export function freeJournal(journal: Journal): void {
  journal.db.pragma('max_page_count = 1073741823');
}

/** The platform's calls bound to it, to override some with `{ ...boundPlatform(p), process: ... }`. */
export function boundPlatform(p: PaymentsPlatform): PaymentsPlatform {
  return {
    process: (...a) => p.process(...a),
    qrTerminalPayment: (...a) => p.qrTerminalPayment(...a),
    capture: (...a) => p.capture(...a),
    captureAll: (...a) => p.captureAll(...a),
    refund: (...a) => p.refund(...a),
    cancel: (...a) => p.cancel(...a),
    allowedOperations: (...a) => p.allowedOperations(...a),
    status: (...a) => p.status(...a),
    refundByWeb: (...a) => p.refundByWeb(...a),
  };
}
