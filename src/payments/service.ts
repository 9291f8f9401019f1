import { AgentError, ErrorCodes, describeError } from '../core/errors.js';
import { isPlatformError } from '../platform/errors.js';
import { adoptSaleRecord } from './adopt.js';
import type {
  AllowedOperationsView,
  AppliedStatus,
  CancelRequest,
  CaptureRequest,
  ListQuery,
  PaymentsApi,
  PendingTracking,
  RefundRequest,
  RelayStore,
  SaleRequest,
  StartedSale,
  TransactionView,
} from './api.js';
import { Engine, trackingOf, type PaymentServiceDeps } from './engine.js';
import type { JournalRow } from './journal/index.js';
import { FINAL_STATES } from './journal/index.js';
import {
  openOperations,
  resolveCancel,
  resolveCapture,
  resolveRefund,
  resolveUntilKnown,
  sendCancel,
  sendCapture,
  sendRefund,
  sendRefundByWeb,
} from './operations.js';
import { failureKind, refusalError } from './outcome.js';
import type { PlatformRecord } from './records.js';
import { recoverAll } from './reversal.js';
import { cancelCheck, captureCheck, localAllowed, mergeAllowed, refundCheck, requireAmount } from './rules.js';
import { runCardSale } from './sale-card.js';
import { validateSale } from './sale-request.js';
import { runWalletSale, walletSettled } from './sale-wallet.js';
import { toView } from './view.js';

export type { PaymentServiceDeps } from './engine.js';

/**
 * The payments engine (issue 4): sales, captures, cancels, refunds, allowed operations,
 * status, the journal behind them, and the resolution of unknown outcomes. The local API
 * and the CLI call PaymentsApi; the provider event relay uses RelayStore.
 */
export class PaymentService implements PaymentsApi, RelayStore {
  private readonly e: Engine;
  private readonly running = new Map<string, { abort: AbortController; run: Promise<void> }>();
  private readonly busy = { reader: undefined as string | undefined, scanner: undefined as string | undefined, display: undefined as string | undefined };

  constructor(deps: PaymentServiceDeps) {
    this.e = new Engine(deps);
  }

  // ------------------------------------------------------------------ sales

  async startSale(req: SaleRequest): Promise<StartedSale> {
    const e = this.e;
    const sale = validateSale(req, e.config);
    const device = sale.method === 'walletA' || sale.method === 'walletB' ? (sale.scenario === 'MerchantScan' ? (sale.walletId === undefined ? 'scanner' : undefined) : 'display') : 'reader';
    if (device !== undefined) {
      const holder = this.busy[device];
      if (holder !== undefined) {
        throw new AgentError(ErrorCodes.PAYMENT_BUSY, `another sale (${holder}) is using the ${device}: finish or abort it first`, {
          httpStatus: 409,
          details: { clientTransactionId: holder },
        });
      }
    }
    const id = e.newId();
    const row = e.journal.insert({
      clientTransactionId: id,
      kind: 'sale',
      amount: sale.amount,
      currency: sale.currency,
      method: sale.method,
      ...(sale.scenario !== undefined ? { scenario: sale.scenario } : {}),
      ...(sale.merchantId !== undefined ? { merchantId: sale.merchantId } : {}),
      state: 'awaiting_customer',
      clientDateTime: e.isoNow(),
      message: sale.method === 'card' ? 'present the card' : sale.method === 'manual' || sale.method === 'moto' ? 'key the card in on the reader' : 'waiting for the customer',
    });
    e.publish(row);
    e.log.info({ clientTransactionId: id, method: sale.method, scenario: sale.scenario, via: sale.via, amount: sale.amount, currency: sale.currency }, 'sale started');
    if (device !== undefined) this.busy[device] = id;
    const abort = new AbortController();
    const settled = e.waitFor(id);
    // The reader and the scanner are free again once they answered; the display once the QR sale is final.
    const release = (): void => {
      if (device !== undefined && device !== 'display' && this.busy[device] === id) this.busy[device] = undefined;
    };
    const run = (async () => {
      try {
        if (sale.method === 'walletA' || sale.method === 'walletB') await runWalletSale(e, id, { walletId: sale.walletId, via: sale.via, order: sale.order }, abort.signal, release);
        else await runCardSale(e, id, sale.moto, abort.signal, release);
      } catch (err) {
        e.log.error({ clientTransactionId: id, err: describeError(err) }, 'sale flow failed');
        const current = e.journal.get(id);
        if (current !== undefined && (current.state === 'awaiting_customer' || current.state === 'created')) {
          e.save(id, { state: 'failed', message: `the sale failed before reaching the platform (${describeError(err)}): nothing was charged` });
        } else if (current?.state === 'in_flight') {
          e.save(id, { state: 'needs_attention', message: `the sale stopped with its outcome unknown (${describeError(err)}); it is checked again at the next start` });
        }
      } finally {
        this.running.delete(id);
        // The display stays taken while a QR is shown; released when the sale is final.
        const current = e.journal.get(id);
        if (device !== undefined && this.busy[device] === id && (device !== 'display' || current === undefined || current.state !== 'awaiting_customer')) {
          this.busy[device] = undefined;
        }
      }
    })();
    this.running.set(id, { abort, run });
    // Resolves once the flow is through (outcome shown) and the row is settled.
    const done = Promise.all([run, settled]).then(() => toView(e.journal.require(id)));
    return { clientTransactionId: id, done };
  }

  async abortSale(clientTransactionId: string): Promise<TransactionView> {
    const e = this.e;
    const row = e.journal.require(clientTransactionId);
    if (row.kind !== 'sale') throw new AgentError(ErrorCodes.PAYMENT_RULE, 'only a sale can be aborted', { httpStatus: 409 });
    if (FINAL_STATES.has(row.state) || row.state === 'offline_stored' || row.state === 'reversing') return toView(row);
    const running = this.running.get(clientTransactionId);
    if (row.state === 'awaiting_customer' && row.serverTransactionId === undefined && running !== undefined) {
      running.abort.abort(new Error('aborted'));
      await running.run;
      return toView(e.journal.require(clientTransactionId));
    }
    if (row.state === 'awaiting_customer' && row.serverTransactionId !== undefined) {
      // A QR is shown (or a wallet confirmation awaited): void it at the platform.
      try {
        await sendCancel(e, row, row.amount, { reason: 'Functional' });
      } catch (err) {
        const fresh = await this.get(clientTransactionId, { refresh: true }).catch(() => toView(e.journal.require(clientTransactionId)));
        if (fresh.state !== 'awaiting_customer') return fresh;
        throw err;
      }
      this.releaseDisplay(clientTransactionId);
      await e.bestEffort('display', () => e.devices.display.clear());
      return toView(e.journal.require(clientTransactionId));
    }
    if (row.state === 'created' || (row.state === 'awaiting_customer' && running === undefined)) {
      return toView(e.save(clientTransactionId, { state: 'cancelled', message: 'aborted before it was sent: nothing was charged' }));
    }
    throw new AgentError(ErrorCodes.PAYMENT_BUSY, 'the sale is already with the platform and cannot be aborted; cancel it once it is finished', {
      httpStatus: 409,
      details: { clientTransactionId, state: row.state },
    });
  }

  private releaseDisplay(id: string): void {
    if (this.busy.display === id) this.busy.display = undefined;
  }

  // ------------------------------------------------------------------ operations

  async cancel(clientTransactionId: string, req: CancelRequest = {}): Promise<TransactionView> {
    const e = this.e;
    const sale = e.journal.require(clientTransactionId);
    const amount = requireAmount(cancelCheck(sale, e.now(), openOperations(e, sale)), req.amount, 'cancel', sale.currency);
    const op = await sendCancel(e, sale, amount, { reason: req.reason ?? 'Functional', ...(req.approvalCode !== undefined ? { approvalCode: req.approvalCode } : {}) });
    return toView(op);
  }

  async refund(clientTransactionId: string, req: RefundRequest = {}): Promise<TransactionView> {
    const e = this.e;
    const sale = e.journal.require(clientTransactionId);
    const retryId = req.clientTransactionId;
    if (retryId !== undefined) {
      const existing = e.journal.get(retryId);
      if (existing !== undefined && existing.state !== 'in_flight' && existing.state !== 'failed') return toView(existing);
    }
    const amount = requireAmount(refundCheck(sale, e.now(), openOperations(e, sale)), req.amount, 'refund', sale.currency);
    const op = await sendRefund(e, sale, amount, {
      ...(req.approvalCode !== undefined ? { approvalCode: req.approvalCode } : {}),
      ...(retryId !== undefined ? { clientTransactionId: retryId } : {}),
    });
    return toView(op);
  }

  /** Cancel or refund by web: the platform picks which (no approval code applies, spec). */
  async refundByWeb(clientTransactionId: string, req: { amount?: number } = {}): Promise<TransactionView> {
    const e = this.e;
    const sale = e.journal.require(clientTransactionId);
    const open = openOperations(e, sale);
    const cancel = cancelCheck(sale, e.now(), open);
    const check = cancel.ok ? cancel : refundCheck(sale, e.now(), open);
    const amount = requireAmount(check, req.amount, cancel.ok ? 'cancel' : 'refund', sale.currency);
    return toView(await sendRefundByWeb(e, sale, amount));
  }

  async capture(clientTransactionId: string, req: CaptureRequest = {}): Promise<TransactionView> {
    const e = this.e;
    const sale = e.journal.require(clientTransactionId);
    const amount = requireAmount(captureCheck(sale, openOperations(e, sale)), req.amount, 'capture', sale.currency);
    return toView(await sendCapture(e, sale, amount));
  }

  async captureAll(merchantId?: string): Promise<TransactionView[]> {
    const e = this.e;
    const merchant = merchantId ?? e.config.auth.merchantId;
    const pending = e.journal
      .inStates(['approved'])
      .filter((r) => r.kind === 'sale' && r.capturedAmount === 0 && /^accepted$/i.test(r.platformStatus ?? '') && (merchant === undefined || r.merchantId === undefined || r.merchantId === merchant));
    // One journal row for the call (capture all has no id of its own); amount: what is pending locally.
    const anchor = { ...(pending[0] ?? { clientTransactionId: '', currency: e.config.payments.defaultCurrency }) } as JournalRow;
    const op = e.journal.insert({
      clientTransactionId: e.newId(),
      kind: 'capture',
      amount: 0,
      currency: anchor.currency,
      state: 'in_flight',
      clientDateTime: e.isoNow(),
      attempts: 1,
      message: 'capture of all pending authorizations',
      ...(merchant !== undefined ? { merchantId: merchant } : {}),
    });
    e.publish(op);
    let answer: { transactions: PlatformRecord[] };
    try {
      answer = await e.platform.captureAll({ clientDateTime: op.clientDateTime, channel: e.channel }, merchant !== undefined ? { merchantId: merchant } : {});
    } catch (err) {
      const kind = failureKind(err);
      if (kind !== 'unknown') {
        const error = kind === 'refused' ? refusalError(err, 'capture of all pending sales', op.clientTransactionId) : err;
        e.save(op.clientTransactionId, { state: 'failed', message: describeError(error) });
        throw error;
      }
      // Unknown: each pending sale tells by its own status whether it was captured.
      const views: TransactionView[] = [];
      for (const sale of pending) {
        try {
          const record = await e.platform.status(sale.clientTransactionId, e.callOptions(sale));
          views.push(toView(adoptSaleRecord(e, sale, record).row));
        } catch (lookupErr) {
          e.log.warn({ clientTransactionId: sale.clientTransactionId, code: isPlatformError(lookupErr) ? lookupErr.code : undefined }, 'capture-all lookup failed');
          views.push(toView(sale));
        }
      }
      e.save(op.clientTransactionId, { state: 'approved', message: 'the platform did not answer: sales checked one by one' });
      return views;
    }
    const views: TransactionView[] = [];
    for (const record of answer.transactions) {
      const id = typeof record.clientTransactionId === 'string' ? record.clientTransactionId : undefined;
      const sale = id !== undefined ? e.journal.get(id) : undefined;
      if (sale === undefined || sale.kind !== 'sale') continue;
      views.push(toView(adoptSaleRecord(e, sale, record).row));
    }
    e.save(op.clientTransactionId, { state: 'approved', message: `captured ${views.length} sale(s)` });
    return views;
  }

  async allowedOperations(clientTransactionId: string): Promise<AllowedOperationsView> {
    const e = this.e;
    const sale = e.journal.require(clientTransactionId);
    const local = localAllowed(sale, e.now(), openOperations(e, sale));
    if (sale.kind !== 'sale' || sale.serverTransactionId === undefined) return local;
    try {
      const answer = await e.platform.allowedOperations(clientTransactionId, e.callOptions(sale));
      return mergeAllowed(local, answer as Record<string, unknown>);
    } catch (err) {
      e.log.debug({ clientTransactionId, code: isPlatformError(err) ? err.code : undefined }, 'allowed operations from local rules only');
      return local;
    }
  }

  async get(clientTransactionId: string, opts: { refresh?: boolean } = {}): Promise<TransactionView> {
    const e = this.e;
    const row = e.journal.require(clientTransactionId);
    if (opts.refresh !== true) return toView(row);
    if (row.kind === 'sale') {
      if (row.serverTransactionId === undefined && row.state !== 'in_flight') return toView(row);
      const record = await e.platform.status(clientTransactionId, e.callOptions(row));
      const adopted = adoptSaleRecord(e, e.journal.require(clientTransactionId), record);
      if (adopted.final) this.walletFinal(adopted.row);
      return toView(adopted.row);
    }
    if (row.state === 'in_flight') await this.resolveOperation(row);
    return toView(e.journal.require(clientTransactionId));
  }

  list(query: ListQuery = {}): TransactionView[] {
    const range = query.date !== undefined ? localDayRange(query.date) : undefined;
    return this.e.journal
      .list({ ...(range ?? {}), ...(query.limit !== undefined ? { limit: query.limit } : {}) })
      .map(toView);
  }

  // ------------------------------------------------------------------ relay store

  pendingTracking(): PendingTracking[] {
    return this.e.journal
      .inStates(['awaiting_customer'])
      .filter((r) => r.kind === 'sale' && r.serverTransactionId !== undefined)
      .map(trackingOf);
  }

  applyStatusRecord(clientTransactionId: string, record: Record<string, unknown>): AppliedStatus {
    const e = this.e;
    const row = e.journal.require(clientTransactionId);
    // The relay publishes what it applies: no second event from here.
    const adopted = adoptSaleRecord(e, row, record, { quiet: true });
    const final = adopted.row.state !== 'awaiting_customer';
    if (final && row.state === 'awaiting_customer') this.walletFinal(adopted.row);
    return { newEvents: adopted.newEvents, view: toView(adopted.row), final };
  }

  markExpired(clientTransactionId: string): TransactionView {
    const e = this.e;
    const row = e.journal.require(clientTransactionId);
    if (row.state !== 'awaiting_customer') return toView(row);
    const saved = e.save(clientTransactionId, { state: 'failed', message: 'the QR code expired before the customer paid: nothing was charged' }, { quiet: true });
    this.walletFinal(saved);
    return toView(saved);
  }

  onTracking(listener: (t: PendingTracking) => void): () => void {
    return this.e.onTracking(listener);
  }

  private walletFinal(row: JournalRow): void {
    if (row.state === 'awaiting_customer') return;
    this.releaseDisplay(row.clientTransactionId);
    walletSettled(this.e, row);
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Start-up: resolves every row a crash left in flight or reversing (issue 4), before the
   * agent takes new sales. Reversals that the platform does not answer go on in the background.
   */
  async recover(): Promise<{ resolved: number; reversing: number; failed: number }> {
    const summary = await recoverAll(this.e, (op) => this.resolveOperation(op));
    if (summary.resolved + summary.reversing + summary.failed > 0) this.e.log.info(summary, 'journal recovered after restart');
    return summary;
  }

  private async resolveOperation(op: JournalRow): Promise<void> {
    const e = this.e;
    const resolver = op.kind === 'refund' ? (o: JournalRow) => resolveRefund(e, o) : op.kind === 'cancel' ? (o: JournalRow) => resolveCancel(e, o) : (o: JournalRow) => resolveCapture(e, o);
    if (op.kind === 'capture' && op.relatedClientTransactionId === undefined) {
      // A capture-all whose answer was lost: settled by looking at each sale.
      e.save(op.clientTransactionId, { state: 'approved', message: 'capture-all outcome checked per sale' });
      return;
    }
    try {
      const first = await resolver(op);
      if (first !== 'unknown') return;
    } catch (err) {
      e.log.warn({ clientTransactionId: op.clientTransactionId, err: describeError(err) }, 'lookup failed; retrying in the background');
    }
    e.background(`resolve ${op.kind}`, () => resolveUntilKnown(e, op, resolver));
  }

  /** Resolves when no reversal or lookup is running in the background. */
  idle(): Promise<void> {
    return this.e.idle();
  }

  /** Stops background retries and aborts sales waiting for the customer. */
  async stop(): Promise<void> {
    for (const { abort } of this.running.values()) abort.abort(new Error('stopping'));
    await Promise.allSettled([...this.running.values()].map((r) => r.run));
    this.e.stop();
    await this.e.idle();
  }

  /** For the offline uploader and tests: the journal row behind a view. */
  row(clientTransactionId: string): JournalRow | undefined {
    return this.e.journal.get(clientTransactionId);
  }
}

/** YYYY-MM-DD in the terminal's local time as an ISO range of created_at. */
function localDayRange(date: string): { from: string; to: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (m === null) throw new AgentError(ErrorCodes.API_BAD_REQUEST, `"${date.slice(0, 20)}" is not a date: expected YYYY-MM-DD`, { httpStatus: 400 });
  const start = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(start.getTime()) || start.getDate() !== Number(m[3])) {
    throw new AgentError(ErrorCodes.API_BAD_REQUEST, `${date} is not a valid date`, { httpStatus: 400 });
  }
  const end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1);
  return { from: start.toISOString(), to: end.toISOString() };
}

