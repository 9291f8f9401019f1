import { z } from 'zod';
import type { Logger } from 'pino';
import { completeCancel, failCancel } from './cancel.js';
import type { LedgerEntry } from './ledger.js';
import { completeRefund, failRefund } from './refund.js';
import type { PaymentDeps } from './transaction.js';
import type { Caller, PendingWallet, SimTransaction, TransactionRecord, TransactionSource } from './types.js';

/*
 * The demo platform's payment state as one JSON document (docs/demo-platform.md, "Demo
 * platform", ledger file): every transaction with what the rules need (amounts moved,
 * idempotency fingerprint, windows' start, wallet and operation timers still running),
 * the ledger of money movements, and the strict profile's busy answers. It holds what the
 * platform answers anyway: records carry only the masked PAN and scheme (process-card.ts,
 * publicInstrument); encrypted card data and PIN blocks are never part of the state. The
 * merchant and the approval code come from the seed again at load, so the file holds no
 * secret either.
 */

interface StoredTransaction {
  record: TransactionRecord;
  tenantId: string;
  source: TransactionSource;
  instrumentType: SimTransaction['instrumentType'];
  paymentScenario?: string;
  amount: { amount: number; currency: string };
  createdAt: number;
  fingerprint: string;
  captured: number;
  cancelled: number;
  refunded: number;
  paymentId?: string;
  pending?: { payAt: number | null; expireAt: number | null; refusesCancelFrom?: number };
}

export interface LedgerState {
  version: 1;
  /** In the order they were made: an operation after the payment it acts upon. */
  transactions: StoredTransaction[];
  ledger: LedgerEntry[];
  /** Refunds and cancels still pending (strict profile), with the platform time each completes. */
  completions: Array<{ serverTransactionId: string; at: number; fails?: boolean | undefined }>;
  busy: string[];
}

// Read back leniently where the platform's own records are concerned (they are its answers), strictly for the bookkeeping.
const storedSchema = z.object({
  record: z.object({
    transactionType: z.enum(['Payment', 'Cancel', 'Refund']),
    serverTransactionId: z.string(),
    clientTransactionId: z.string(),
    relatedServerTransactionId: z.string().optional(),
    transactionStatus: z.enum([
      'Initialized',
      'Pending',
      'Accepted',
      'Captured',
      'Refused',
      'Failed',
      'Expired',
      'cancelled',
    ]),
    tenantId: z.string(),
    merchantAggregatorId: z.string(),
    merchantId: z.string(),
    events: z.array(z.looseObject({ eventType: z.string(), serverProcessingDateTime: z.string() })),
  }),
  tenantId: z.string(),
  source: z.object({
    sourceType: z.literal('instore'),
    storeId: z.string(),
    logicalDeviceId: z.string(),
    physicalDeviceId: z.string(),
  }),
  instrumentType: z.enum(['card', 'walletA', 'walletB']),
  paymentScenario: z.string().optional(),
  amount: z.object({ amount: z.number().int(), currency: z.string() }),
  createdAt: z.number(),
  fingerprint: z.string(),
  captured: z.number().int(),
  cancelled: z.number().int(),
  refunded: z.number().int(),
  paymentId: z.string().optional(),
  pending: z
    .object({ payAt: z.number().nullable(), expireAt: z.number().nullable(), refusesCancelFrom: z.number().optional() })
    .optional(),
});

const ledgerEntrySchema = z.object({
  seq: z.number().int(),
  kind: z.enum(['authorization', 'sale', 'capture', 'release', 'cancel', 'reversal', 'refund']),
  merchantId: z.string(),
  serverTransactionId: z.string(),
  clientTransactionId: z.string(),
  paymentServerTransactionId: z.string(),
  paymentClientTransactionId: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  effect: z.number().int(),
  time: z.string(),
});

export const ledgerStateSchema: z.ZodType<LedgerState> = z.object({
  version: z.literal(1),
  transactions: z.array(storedSchema),
  ledger: z.array(ledgerEntrySchema),
  completions: z.array(z.object({ serverTransactionId: z.string(), at: z.number(), fails: z.boolean().optional() })),
  busy: z.array(z.string()),
});

/** The state to write; a snapshot of plain data (nothing shared with the live objects). */
export function captureState(deps: PaymentDeps): LedgerState {
  const transactions: StoredTransaction[] = [];
  for (const tx of deps.store.all()) {
    transactions.push({
      record: structuredClone(tx.record),
      tenantId: tx.caller.tenantId,
      source: { ...tx.caller.source },
      instrumentType: tx.instrumentType,
      ...(tx.paymentScenario !== undefined ? { paymentScenario: tx.paymentScenario } : {}),
      amount: { ...tx.amount },
      createdAt: tx.createdAt,
      fingerprint: tx.fingerprint,
      captured: tx.captured,
      cancelled: tx.cancelled,
      refunded: tx.refunded,
      ...(tx.paymentId !== undefined ? { paymentId: tx.paymentId } : {}),
      ...(tx.pending !== undefined
        ? {
            pending: {
              payAt: tx.pending.payAt ?? null,
              expireAt: tx.pending.expireAt ?? null,
              ...(tx.pending.refusesCancelFrom !== undefined
                ? { refusesCancelFrom: tx.pending.refusesCancelFrom }
                : {}),
            },
          }
        : {}),
    });
  }
  return {
    version: 1,
    transactions,
    ledger: deps.ledger.list(),
    completions: deps.completions.pending().map((p) => ({
      serverTransactionId: p.tx.record.serverTransactionId,
      at: p.at,
      ...(p.fails ? { fails: true } : {}),
    })),
    busy: deps.busy.keys(),
  };
}

/**
 * Puts a state read from the ledger file back into an empty platform: transactions (with
 * their links), the ledger, wallet payments still waiting for their provider (an outcome
 * whose time passed while stopped is applied at the next read, as always), and pending
 * refunds and cancels (completed at once when their time has passed). A transaction of a
 * merchant the seed no longer has is left out, with a warning.
 */
export function restoreState(deps: PaymentDeps, state: LedgerState, log: Logger): void {
  const byServerId = new Map<string, SimTransaction>();
  let skipped = 0;
  for (const stored of state.transactions) {
    const caller = callerFor(deps, stored);
    if (caller === undefined) {
      skipped++;
      continue;
    }
    const relatedId = stored.record.relatedServerTransactionId;
    const related = relatedId === undefined ? undefined : byServerId.get(relatedId);
    const tx: SimTransaction = {
      record: structuredClone(stored.record),
      merchant: caller.merchant,
      caller,
      instrumentType: stored.instrumentType,
      paymentScenario: stored.paymentScenario,
      amount: { ...stored.amount },
      createdAt: stored.createdAt,
      fingerprint: stored.fingerprint,
      captured: stored.captured,
      cancelled: stored.cancelled,
      refunded: stored.refunded,
      paymentId: stored.paymentId,
      pending: undefined,
      related,
      children: [],
    };
    related?.children.push(tx);
    byServerId.set(tx.record.serverTransactionId, tx);
    deps.store.add(tx);
    if (stored.pending !== undefined && tx.record.transactionStatus === 'Initialized') {
      const pending: PendingWallet = {
        payAt: stored.pending.payAt ?? undefined,
        expireAt: stored.pending.expireAt ?? undefined,
        ...(stored.pending.refusesCancelFrom !== undefined
          ? { refusesCancelFrom: stored.pending.refusesCancelFrom }
          : {}),
      };
      deps.wallets.await(tx, pending);
    }
  }
  deps.ledger.restore(state.ledger);
  deps.busy.restore(state.busy);
  const now = deps.ctx.now();
  for (const c of state.completions) {
    const op = byServerId.get(c.serverTransactionId);
    if (op === undefined) continue;
    const fails = c.fails === true;
    const refund = op.record.transactionType === 'Refund';
    const finish = refund
      ? () => (fails ? failRefund(deps, op) : completeRefund(deps, op))
      : () => (fails ? failCancel(deps, op) : completeCancel(deps, op, true));
    deps.completions.later(op, c.at - now, finish, fails);
  }
  if (skipped > 0)
    log.warn({ skipped }, 'demo platform ledger: transactions of merchants the seed no longer has were left out');
}

function callerFor(deps: PaymentDeps, stored: StoredTransaction): Caller | undefined {
  const { seed } = deps.ctx;
  const merchant = seed.merchants.find((m) => m.merchantId === stored.record.merchantId);
  if (merchant === undefined) return undefined;
  const aggregator = seed.aggregators.find((a) => a.merchantAggregatorId === merchant.merchantAggregatorId);
  return {
    merchant,
    tenantId: stored.tenantId,
    approvalCode: aggregator?.approvalCode ?? null,
    source: { ...stored.source },
  };
}
