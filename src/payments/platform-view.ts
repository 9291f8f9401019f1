import type { OperationKind, TransactionState, TransactionView } from './api.js';
import { operationVerdict } from './operation-result.js';
import {
  classifyStatus,
  publicEvent,
  recordEvents,
  recordServerId,
  recordStatus,
  saleStateFor,
  type PlatformRecord,
} from './records.js';

const KIND: Record<string, OperationKind> = { payment: 'sale', refund: 'refund', cancel: 'cancel' };
const AMOUNT_FIELDS = ['authorizationAmount', 'refundAmount', 'cancelAmount', 'captureAmount', 'paymentAmount'];

function amountOf(record: PlatformRecord): { amount: number; currency: string } | undefined {
  for (const event of recordEvents(record)) {
    for (const field of AMOUNT_FIELDS) {
      const v = event[field];
      if (
        typeof v === 'object' &&
        v !== null &&
        typeof (v as { amount?: unknown }).amount === 'number' &&
        typeof (v as { currency?: unknown }).currency === 'string'
      ) {
        return { amount: (v as { amount: number }).amount, currency: (v as { currency: string }).currency };
      }
    }
  }
  return undefined;
}

function stateOf(kind: OperationKind, record: PlatformRecord, status: string | undefined): TransactionState {
  if (kind === 'refund' || kind === 'cancel') {
    const outcome = operationVerdict(kind, record).outcome;
    return outcome === 'done' ? 'approved' : outcome;
  }
  if (classifyStatus(status) === 'pending') return 'pending';
  return saleStateFor(status) ?? 'needs_attention';
}

/**
 * A transaction only the platform knows (asked by an id the journal does not have:
 * docs/payments.md, "Capture, cancel, refund"), shown as its record says: the kind from
 * `transactionType`, the amount from the first event that carries one (0 when none does),
 * the state from the status as the agent reads statuses. Nothing is journaled.
 */
export function platformView(
  askedId: string,
  record: PlatformRecord,
  defaultCurrency: string,
  nowMs: number,
): TransactionView {
  const status = recordStatus(record);
  const type = typeof record.transactionType === 'string' ? record.transactionType.trim().toLowerCase() : 'payment';
  const kind = KIND[type] ?? 'sale';
  const money = amountOf(record);
  const now = new Date(nowMs).toISOString();
  const view: TransactionView = {
    clientTransactionId: typeof record.clientTransactionId === 'string' ? record.clientTransactionId : askedId,
    kind,
    amount: money?.amount ?? 0,
    currency: money?.currency ?? defaultCurrency,
    state: stateOf(kind, record, status),
    offline: false,
    capturedAmount: 0,
    refundedAmount: 0,
    cancelledAmount: 0,
    createdAt: now,
    updatedAt: now,
    events: recordEvents(record).map(publicEvent),
    message: "not in this terminal's journal: as the platform reports it",
  };
  const serverId = recordServerId(record);
  if (serverId !== undefined) view.serverTransactionId = serverId;
  if (status !== undefined) view.platformStatus = status;
  return view;
}
