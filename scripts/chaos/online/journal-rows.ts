import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { ChaosJournalRow } from './compare.js';

interface Raw {
  client_id: string;
  kind: ChaosJournalRow['kind'];
  merchant_id: string | null;
  method: string | null;
  amount: number;
  state: string;
  related_client_id: string | null;
  captured_amount: number;
  refunded_amount: number;
  cancelled_amount: number;
  message: string | null;
  platform_status: string | null;
  server_id: string | null;
}

/** Every row of the journal the chaos child left, read with the database opened read-only. */
export function readJournalRows(dataDir: string): ChaosJournalRow[] {
  const db = new Database(join(dataDir, 'journal.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const raw = db
      .prepare<[], Raw>(
        'SELECT client_id, kind, merchant_id, method, amount, state, related_client_id, captured_amount, refunded_amount, cancelled_amount, message, platform_status, server_id FROM transactions ORDER BY created_at, rowid',
      )
      .all();
    return raw.map((r) => ({
      clientTransactionId: r.client_id,
      kind: r.kind,
      merchantId: r.merchant_id ?? undefined,
      method: r.method ?? undefined,
      amount: r.amount,
      state: r.state,
      relatedClientTransactionId: r.related_client_id ?? undefined,
      capturedAmount: r.captured_amount,
      refundedAmount: r.refunded_amount,
      cancelledAmount: r.cancelled_amount,
      message: r.message ?? undefined,
      platformStatus: r.platform_status ?? undefined,
      serverTransactionId: r.server_id ?? undefined,
    }));
  } finally {
    db.close();
  }
}
