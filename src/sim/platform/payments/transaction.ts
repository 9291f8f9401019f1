import type { SimContext } from '../context.js';
import type { Ledger } from './ledger.js';
import type { Amount } from './money.js';
import { conflictError, notFoundError, ruleError, validationError } from './http-errors.js';
import type { TransactionStore } from './store.js';
import type { WalletProvider } from './wallet-provider.js';
import type { BusyAnswers, OperationCompletions } from './completions.js';
import type {
  Caller,
  InstrumentType,
  SimTransaction,
  TransactionRecord,
  TransactionStatus,
  TransactionType,
} from './types.js';

/** What every payment operation works with. */
export interface PaymentDeps {
  ctx: SimContext;
  store: TransactionStore;
  ledger: Ledger;
  wallets: WalletProvider;
  /** Refunds and cancels that complete later (strict profile). */
  completions: OperationCompletions;
  /** The strict profile's 429 answers to process. */
  busy: BusyAnswers;
}

export interface NewTransaction {
  type: TransactionType;
  clientTransactionId: string;
  status: TransactionStatus;
  instrumentType: InstrumentType;
  paymentScenario?: string | undefined;
  amount: Amount;
  fingerprint: string;
  related?: SimTransaction;
  paymentId?: string;
  /** Platform time of the operation (the start of cancel and refund windows). */
  now: number;
}

export function createTransaction(deps: PaymentDeps, caller: Caller, init: NewTransaction): SimTransaction {
  const record: TransactionRecord = {
    transactionType: init.type,
    serverTransactionId: deps.store.newServerId(),
    clientTransactionId: init.clientTransactionId,
    ...(init.related !== undefined ? { relatedServerTransactionId: init.related.record.serverTransactionId } : {}),
    transactionStatus: init.status,
    tenantId: caller.tenantId,
    merchantAggregatorId: caller.merchant.merchantAggregatorId,
    merchantId: caller.merchant.merchantId,
    events: [],
  };
  return {
    record,
    merchant: caller.merchant,
    caller,
    instrumentType: init.instrumentType,
    paymentScenario: init.paymentScenario,
    amount: { ...init.amount },
    createdAt: init.now,
    fingerprint: init.fingerprint,
    captured: 0,
    cancelled: 0,
    refunded: 0,
    paymentId: init.paymentId,
    pending: undefined,
    related: init.related,
    children: [],
  };
}

/** A copy of the record, so nothing outside can change the platform's state. */
export function snapshot(tx: SimTransaction): TransactionRecord {
  return structuredClone(tx.record);
}

/**
 * `tx` as a lookup by id sees it now: a lookup-lag fault hides a transaction recorded less
 * than its lag ago (faults.ts, `lookupLagMs`; docs/demo-platform.md, "Demo platform").
 */
export function visible(deps: PaymentDeps, tx: SimTransaction | undefined): SimTransaction | undefined {
  if (tx === undefined) return undefined;
  const lag = deps.ctx.faults.lookupLagMs();
  return lag > 0 && deps.ctx.now() - tx.createdAt < lag ? undefined : tx;
}

/**
 * The caller's transaction a path's id names (client or server id), with any due wallet
 * outcome applied; 404 otherwise, also while a lookup-lag fault hides it. The strict profile (docs/demo-platform.md, "Demo
 * platform") does not know a terminal QR call's client id here (only its server id), and
 * answers a read (`read: true`: the status call) of an id it does not know with
 * 400, as a platform may, instead of 404.
 */
export function lookup(deps: PaymentDeps, caller: Caller, id: string, opts: { read?: boolean } = {}): SimTransaction {
  const strict = deps.ctx.profile.strict;
  const tx = visible(deps, deps.store.find(caller.merchant.merchantId, id, { qrClientIds: !strict }));
  if (tx === undefined && strict && opts.read === true)
    throw validationError(`transactionId: ${id} is not a valid transaction id`, 'INVALID_TRANSACTION_ID');
  if (tx === undefined) throw notFoundError(id);
  deps.wallets.settle(tx);
  deps.completions.settle(tx);
  return tx;
}

/**
 * A repeated clientNewTransactionId: the same request answers the existing transaction;
 * the same id for a different request is a conflict (409) (docs/demo-platform.md, "Demo
 * platform").
 */
export function repeated(deps: PaymentDeps, existing: SimTransaction, fingerprint: string): TransactionRecord {
  if (existing.fingerprint !== fingerprint) {
    throw conflictError(
      'DUPLICATE_TRANSACTION_ID',
      `clientNewTransactionId ${existing.record.clientTransactionId} is already used by a different ${existing.record.transactionType.toLowerCase()}`,
    );
  }
  deps.wallets.settle(existing);
  deps.completions.settle(existing);
  return snapshot(existing);
}

/**
 * `approvalCode` is top level of refund and cancel bodies (docs/platform-contract.md,
 * "Decisions where the spec is silent", approval code): required and checked when the
 * merchant's aggregator demands one (the seed's "Demo Books": docs/demo-platform.md, "Demo
 * platform").
 */
export function checkApprovalCode(caller: Caller, approvalCode: string | undefined): void {
  if (caller.approvalCode === null) return;
  if (approvalCode === undefined || approvalCode === '')
    throw validationError('approvalCode is required for this merchant', 'APPROVAL_CODE_REQUIRED');
  if (approvalCode !== caller.approvalCode)
    throw validationError('approvalCode is not correct', 'APPROVAL_CODE_INVALID');
}

/** The operation's amount and instrument must be those of the transaction acted upon. */
export function checkMatches(tx: SimTransaction, amount: Amount, instrumentType?: string): void {
  if (amount.currency !== tx.amount.currency) {
    throw ruleError('CURRENCY_MISMATCH', `the transaction is in ${tx.amount.currency}, not ${amount.currency}`);
  }
  if (instrumentType !== undefined && instrumentType !== tx.instrumentType) {
    throw ruleError('INSTRUMENT_MISMATCH', `the transaction was paid with ${tx.instrumentType}, not ${instrumentType}`);
  }
}

/** Event-name prefix of the party that answers for the instrument (walletA…, walletB…, card…). */
export const resultPrefix = (tx: SimTransaction): string => tx.instrumentType;

/** A client id for a record the client did not name (a cancel without clientNewTransactionId). */
export function derivedClientId(deps: PaymentDeps, tx: SimTransaction, kind: string): string {
  for (let n = tx.children.length + 1; ; n++) {
    const candidate = `${tx.record.clientTransactionId}-${kind}-${n}`;
    if (deps.store.byClient(tx.merchant.merchantId, candidate) === undefined) return candidate;
  }
}
