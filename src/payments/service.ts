import { AgentError, ErrorCodes, describeError } from '../core/index.js';
import { isPlatformError } from '../platform/index.js';
import { adoptSaleRecord, isFollowedUnknown } from './adopt.js';
import type {
  AllowedOperationsView,
  AppliedStatus,
  CancelRequest,
  CaptureRequest,
  ListQuery,
  PaymentsApi,
  PendingTracking,
  RefundByWebRequest,
  RefundRequest,
  RelayStore,
  SaleRequest,
  StartedSale,
  TransactionView,
} from './api.js';
import { PaymentContext, trackingOf, type PaymentServiceDeps } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { FINAL_STATES, currentOperator } from './journal/index.js';
import {
  applyOperationRecord,
  openOperations,
  resolverFor,
  statusIdOf,
  resolveUntilKnown,
  sendCancel,
  sendCapture,
  sendRefund,
  sendRefundByWeb,
} from './operations.js';
import { captureAllPending } from './capture-all.js';
import { DeviceLocks, type SaleDevice } from './device-locks.js';
import { recoverAll, resolveParkedSale } from './reversal.js';
import { cancelCheck, captureCheck, localAllowed, mergeAllowed, refundCheck, requireAmount } from './rules.js';
import { runCardSale } from './sale-card.js';
import { validateSale } from './sale-request.js';
import {
  checkOperationMerchant,
  checkSaleCanStart,
  diskCheck,
  journalCheck,
  type StorageCheck,
} from './sale-start-checks.js';
import { runWalletSale, walletSettled } from './sale-wallet.js';
import { toView } from './view.js';
import { journalWebOrder, refuseWebOrder } from './web-order.js';
import { captureIfImmediate, needsImmediateCapture } from './immediate-capture.js';
import { platformView } from './platform-view.js';
import { isUnknownIdAnswer } from './outcome.js';
import { isQrCallSale, platformIdOf, QR_CHECKING_MESSAGE } from './qr-call.js';
import { outcomeKept, recordOrKeep } from './outcome-recorder.js';
import { expireQr, expiryOutcomeMessage, followExpiredQr, isQrSale } from './qr-expiry.js';

export type { PaymentServiceDeps } from './payment-context.js';

/**
 * The facade of payments (docs/architecture.md, "Flows"): sales, captures, cancels, refunds, allowed
 * operations, status, the journal behind them, and the resolution of unknown outcomes.
 * The local API and the CLI call PaymentsApi; the provider event relay uses RelayStore.
 * The flows themselves live in their own files and get the PaymentContext.
 */
export class PaymentService implements PaymentsApi, RelayStore {
  private readonly ctx: PaymentContext;
  private readonly running = new Map<string, { abort: AbortController; run: Promise<void> }>();
  private readonly devices = new DeviceLocks();
  /** Sales whose expired QR is being followed here (qr-expiry.ts): one follow-up each. */
  private readonly expiring = new Set<string>();

  private readonly unsubscribe: () => void;

  constructor(deps: PaymentServiceDeps) {
    this.ctx = new PaymentContext(deps);
    // An offline sale the platform settled on upload (src/offline/ reports it through the
    // journal and the bus) is captured like an online one (docs/payments.md, "Offline card sale and upload").
    this.unsubscribe = deps.bus.on('transaction.updated', (e) => {
      if (e.data.kind !== 'sale' || e.data.status !== 'approved') return;
      // Three columns first: an online sale's approval (one event per platform event) reads no whole row here.
      if (this.ctx.journal.flags(e.data.clientTransactionId)?.offline !== true) return;
      const row = this.ctx.journal.get(e.data.clientTransactionId);
      if (row === undefined || !needsImmediateCapture(this.ctx, row)) return;
      this.ctx.background('capture uploaded sale', () => captureIfImmediate(this.ctx, row));
    });
  }

  /**
   * The journal row a caller names by the client or the server transaction id (the platform
   * takes either: docs/platform-contract.md, "Endpoints"). An id the journal does not know
   * is asked of the platform's status call; what it answers is matched to the journal by
   * the ids in the record. `record` is the platform's answer when one was asked.
   */
  private async locate(
    id: string,
    merchantId?: string,
  ): Promise<{ row: JournalRow | undefined; record?: Record<string, unknown> }> {
    const ctx = this.ctx;
    const local = ctx.journal.get(id) ?? ctx.journal.byServerId(id);
    if (local !== undefined) return { row: local };
    let record: Record<string, unknown>;
    try {
      // A web order of another merchant is only visible with that merchant's token.
      record = await ctx.platform.status(id, {
        busyRetryMaxMs: 0,
        ...(merchantId !== undefined ? { merchantId } : {}),
      });
    } catch (err) {
      if (isUnknownIdAnswer(err))
        throw new AgentError(
          ErrorCodes.PAYMENT_NOT_FOUND,
          `no transaction ${id}, neither in the journal nor at the platform`,
          { cause: err },
        );
      throw err;
    }
    const clientId = typeof record.clientTransactionId === 'string' ? record.clientTransactionId : undefined;
    const serverId = typeof record.serverTransactionId === 'string' ? record.serverTransactionId : undefined;
    const row =
      (clientId !== undefined ? ctx.journal.get(clientId) : undefined) ??
      (serverId !== undefined ? ctx.journal.byServerId(serverId) : undefined);
    return { row, record };
  }

  /** The journal row of a sale or operation named by either id; one only the platform knows cannot be acted on here. */
  private async rowFor(id: string): Promise<JournalRow> {
    const found = await this.locate(id);
    if (found.row !== undefined) return found.row;
    const clientId =
      typeof found.record?.clientTransactionId === 'string' ? ` (client id ${found.record.clientTransactionId})` : '';
    throw new AgentError(
      ErrorCodes.PAYMENT_NOT_FOUND,
      `the platform knows transaction ${id}${clientId}, but this terminal's journal has no row for it: it was not made here, so it cannot be operated on from this terminal`,
    );
  }

  // ------------------------------------------------------------------ sales

  async startSale(req: SaleRequest): Promise<StartedSale> {
    const ctx = this.ctx;
    const sale = validateSale(req, ctx.config);
    // Refused before the reader is asked: the customer never presents a card for a sale that cannot be made or kept.
    await checkSaleCanStart(ctx, sale, ctx.statfs);
    const device: SaleDevice | undefined =
      sale.method === 'walletA' || sale.method === 'walletB'
        ? sale.scenario === 'MerchantScan'
          ? sale.walletId === undefined
            ? 'scanner'
            : undefined
          : 'display'
        : 'reader';
    if (device !== undefined) this.devices.requireFree(device);
    const id = ctx.newId();
    // Waited for from the row just inserted, before anything (a bus listener) could move it:
    // the write announces the row only once `fn` has returned.
    let settled: Promise<TransactionView> | undefined;
    ctx.rows.write(() => {
      const inserted = ctx.insert({
        clientTransactionId: id,
        kind: 'sale',
        amount: sale.amount,
        currency: sale.currency,
        method: sale.method,
        ...(sale.scenario !== undefined ? { scenario: sale.scenario } : {}),
        ...(sale.merchantId !== undefined ? { merchantId: sale.merchantId } : {}),
        ...(sale.reference !== undefined ? { reference: sale.reference } : {}),
        ...(sale.via === 'qrTerminal' ? { via: 'qrTerminal' as const } : {}),
        state: 'awaiting_customer',
        clientDateTime: ctx.isoNow(),
        message:
          sale.method === 'card'
            ? 'present the card'
            : sale.method === 'manual' || sale.method === 'moto'
              ? 'key the card in on the reader'
              : 'waiting for the customer',
      });
      settled = ctx.waitFor(id, inserted);
      return inserted;
    });
    ctx.log.info(
      {
        clientTransactionId: id,
        method: sale.method,
        scenario: sale.scenario,
        via: sale.via,
        amount: sale.amount,
        currency: sale.currency,
      },
      'sale started',
    );
    if (device !== undefined) this.devices.take(device, id);
    const abort = new AbortController();
    // The reader and the scanner are free again once they answered; the display once the QR sale is final.
    const release = (): void => {
      if (device !== undefined && device !== 'display') this.devices.release(device, id);
    };
    const run = (async () => {
      try {
        if (sale.method === 'walletA' || sale.method === 'walletB')
          await runWalletSale(
            ctx,
            id,
            { walletId: sale.walletId, via: sale.via, order: sale.order },
            abort.signal,
            release,
          );
        else await runCardSale(ctx, id, sale.moto, abort.signal, release);
      } catch (err) {
        ctx.log.error({ clientTransactionId: id, err: describeError(err) }, 'sale flow failed');
        const current = ctx.journal.get(id);
        if (current !== undefined && (current.state === 'awaiting_customer' || current.state === 'created')) {
          ctx.save(id, {
            state: 'failed',
            message: `the sale failed before reaching the platform (${describeError(err)}): nothing was charged`,
          });
        } else if (current?.state === 'in_flight') {
          ctx.save(id, {
            state: 'needs_attention',
            message: `the sale stopped with its outcome unknown (${describeError(err)}); it is looked up at the platform as soon as the journal can write`,
          });
          ctx.background('look up a sale set aside', () => resolveParkedSale(ctx, id));
        }
      } finally {
        this.running.delete(id);
        // The display stays taken while a QR is shown; released when the sale is final (the row is read only then).
        if (device !== undefined && (device !== 'display' || ctx.journal.get(id)?.state !== 'awaiting_customer'))
          this.devices.release(device, id);
      }
    })();
    this.running.set(id, { abort, run });
    // Resolves once the flow is through (outcome shown) and the row is settled.
    const done = Promise.all([run, settled]).then(() => toView(ctx.journal.require(id)));
    return { clientTransactionId: id, done };
  }

  async abortSale(id: string): Promise<TransactionView> {
    const ctx = this.ctx;
    const row = await this.rowFor(id);
    const clientTransactionId = row.clientTransactionId;
    if (row.kind !== 'sale') throw new AgentError(ErrorCodes.PAYMENT_STATE, 'only a sale can be aborted');
    // A sale `pending` after its QR expired has its cancel asked already (qr-expiry.ts): nothing more to abort.
    if (
      FINAL_STATES.has(row.state) ||
      row.state === 'offline_stored' ||
      row.state === 'reversing' ||
      row.state === 'pending'
    )
      return toView(row);
    const running = this.running.get(clientTransactionId);
    if (isQrCallSale(row) && row.attempts >= 1 && (row.state === 'in_flight' || row.state === 'awaiting_customer'))
      return this.abortQrCall(row, running);
    if (row.state === 'awaiting_customer' && row.serverTransactionId === undefined && running !== undefined) {
      running.abort.abort(new Error('aborted'));
      await running.run;
      return toView(ctx.journal.require(clientTransactionId));
    }
    if (row.state === 'awaiting_customer' && row.serverTransactionId !== undefined) {
      // A QR is shown (or a wallet confirmation awaited): void it at the platform.
      try {
        await sendCancel(ctx, row, row.amount, { reason: 'Functional' });
      } catch (err) {
        const fresh = await this.get(clientTransactionId, { refresh: true }).catch(() =>
          toView(ctx.journal.require(clientTransactionId)),
        );
        if (fresh.state !== 'awaiting_customer') return fresh;
        throw err;
      }
      this.releaseDisplay(clientTransactionId);
      await ctx.bestEffort('display', () => ctx.devices.display.clear());
      return toView(ctx.journal.require(clientTransactionId));
    }
    if (row.state === 'created' || (row.state === 'awaiting_customer' && running === undefined)) {
      return toView(
        ctx.save(clientTransactionId, {
          state: 'cancelled',
          message: 'aborted before it was sent: nothing was charged',
        }),
      );
    }
    throw new AgentError(
      ErrorCodes.PAYMENT_BUSY,
      'the sale is already with the platform and cannot be aborted; cancel it once it is finished',
      {
        details: { clientTransactionId, state: row.state },
      },
    );
  }

  /**
   * An abort of a sale sent through the terminal QR call (docs/payments.md, "Wallet QR,
   * merchant scan"): the cancel goes to the platform (by the server id when an answer gave
   * one), and its answer is the outcome. A call still out is let finish first (its answer,
   * or the lookup after it), so the cancel acts on what the platform did; a sale it then
   * finds charged is cancelled too, since the clerk aborted it. A cancel the platform does
   * not do leaves the sale as it was: being checked, or waiting for the wallet.
   */
  private async abortQrCall(
    row: JournalRow,
    running: { abort: AbortController; run: Promise<void> } | undefined,
  ): Promise<TransactionView> {
    const ctx = this.ctx;
    const id = row.clientTransactionId;
    const callOut = running !== undefined && row.state === 'in_flight' && row.message !== QR_CHECKING_MESSAGE;
    if (callOut) {
      running.abort.abort(new Error('aborted'));
      await running.run;
    }
    const current = ctx.journal.require(id);
    const open =
      current.state === 'in_flight' ||
      current.state === 'awaiting_customer' ||
      (callOut && current.state === 'approved');
    if (!open) return toView(current);
    try {
      await sendCancel(ctx, current, current.amount - current.cancelledAmount - current.refundedAmount, {
        reason: 'Functional',
      });
    } catch (err) {
      const after = ctx.journal.require(id);
      if (after.state !== current.state) return toView(after);
      const code = err instanceof AgentError ? err.code : ErrorCodes.PAYMENT_RULE;
      const still =
        after.state === 'in_flight'
          ? "the sale's outcome is still being checked with the platform: do not repeat the sale"
          : 'the sale is unchanged';
      throw new AgentError(code, `the cancel was not done (${describeError(err)}); ${still}`, {
        cause: err,
        details: { clientTransactionId: id, state: after.state },
      });
    }
    this.releaseDisplay(id);
    await ctx.bestEffort('display', () => ctx.devices.display.clear());
    return toView(ctx.journal.require(id));
  }

  private releaseDisplay(id: string): void {
    this.devices.release('display', id);
  }

  // ------------------------------------------------------------------ operations

  async cancel(id: string, req: CancelRequest = {}): Promise<TransactionView> {
    const ctx = this.ctx;
    const sale = await this.rowFor(id);
    refuseWebOrder(sale, 'cancelled');
    const amount = requireAmount(
      cancelCheck(sale, ctx.clock.wall(), openOperations(ctx, sale)),
      req.amount,
      'cancel',
      sale.currency,
    );
    const op = await sendCancel(ctx, sale, amount, {
      reason: req.reason ?? 'Functional',
      ...(req.approvalCode !== undefined ? { approvalCode: req.approvalCode } : {}),
    });
    return toView(op);
  }

  async refund(id: string, req: RefundRequest = {}): Promise<TransactionView> {
    const ctx = this.ctx;
    const sale = await this.rowFor(id);
    const retryId = req.clientTransactionId;
    if (retryId !== undefined) {
      const existing = ctx.journal.get(retryId);
      if (existing !== undefined && existing.state !== 'in_flight' && existing.state !== 'failed')
        return toView(existing);
    }
    refuseWebOrder(sale, 'refunded');
    const amount = requireAmount(
      refundCheck(sale, ctx.clock.wall(), openOperations(ctx, sale)),
      req.amount,
      'refund',
      sale.currency,
    );
    const op = await sendRefund(ctx, sale, amount, {
      ...(req.approvalCode !== undefined ? { approvalCode: req.approvalCode } : {}),
      ...(retryId !== undefined ? { clientTransactionId: retryId } : {}),
    });
    return toView(op);
  }

  /** Cancel or refund by web: the platform picks which (no approval code applies, spec). */
  async refundByWeb(id: string, req: RefundByWebRequest = {}): Promise<TransactionView> {
    const ctx = this.ctx;
    // Named merchant refused before anything is asked or journaled, as a sale's (sale-start-checks.ts).
    if (req.merchantId !== undefined) await checkOperationMerchant(ctx, req.merchantId);
    // A transaction only the platform knows (a web shop's order) is journaled from its record first (web-order.ts),
    // under the merchant named, whose token then gives it back.
    const found = await this.locate(id, req.merchantId);
    const sale = found.row ?? journalWebOrder(ctx, id, found.record ?? {}, req.merchantId);
    const open = openOperations(ctx, sale);
    const cancel = cancelCheck(sale, ctx.clock.wall(), open);
    const check = cancel.ok ? cancel : refundCheck(sale, ctx.clock.wall(), open);
    const amount = requireAmount(check, req.amount, cancel.ok ? 'cancel' : 'refund', sale.currency);
    if (sale.origin !== 'web') {
      // Its own staff permission, checked by the local API (docs/payments.md, "Refund by web"): who gave a sale of this terminal back by web, and which.
      ctx.log.info(
        { operator: currentOperator(), clientTransactionId: sale.clientTransactionId, amount, currency: sale.currency },
        'refund by web of a sale made at this terminal',
      );
    }
    return toView(await sendRefundByWeb(ctx, sale, amount));
  }

  async capture(id: string, req: CaptureRequest = {}): Promise<TransactionView> {
    const ctx = this.ctx;
    const sale = await this.rowFor(id);
    refuseWebOrder(sale, 'captured');
    const amount = requireAmount(captureCheck(sale, openOperations(ctx, sale)), req.amount, 'capture', sale.currency);
    return toView(await sendCapture(ctx, sale, amount));
  }

  async captureAll(merchantId?: string): Promise<TransactionView[]> {
    if (merchantId !== undefined) await checkOperationMerchant(this.ctx, merchantId, 'nothing was captured');
    return captureAllPending(this.ctx, merchantId);
  }

  async allowedOperations(id: string): Promise<AllowedOperationsView> {
    const ctx = this.ctx;
    const sale = await this.rowFor(id);
    const clientTransactionId = sale.clientTransactionId;
    const local = localAllowed(sale, ctx.clock.wall(), openOperations(ctx, sale));
    if (sale.kind !== 'sale' || sale.serverTransactionId === undefined) return local;
    try {
      const answer = await ctx.platform.allowedOperations(platformIdOf(sale), ctx.callOptions(sale));
      return mergeAllowed(local, answer);
    } catch (err) {
      ctx.log.debug(
        { clientTransactionId, code: isPlatformError(err) ? err.code : undefined },
        'allowed operations from local rules only',
      );
      return local;
    }
  }

  async get(
    id: string,
    opts: { refresh?: boolean; merchantId?: string; journalOnly?: boolean } = {},
  ): Promise<TransactionView> {
    const ctx = this.ctx;
    if (opts.journalOnly === true && ctx.journal.get(id) === undefined && ctx.journal.byServerId(id) === undefined) {
      throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no transaction ${id} in the journal`);
    }
    const found = await this.locate(id, opts.merchantId);
    if (found.row === undefined) {
      // Only the platform knows it: shown as it reports it, nothing journaled.
      return platformView(id, found.record ?? {}, ctx.config.payments.defaultCurrency, ctx.clock.wall());
    }
    const row = found.row;
    const clientTransactionId = row.clientTransactionId;
    if (opts.refresh !== true) return toView(row);
    if (row.kind === 'sale') {
      if (row.serverTransactionId === undefined && row.state !== 'in_flight') return toView(row);
      const record = await ctx.platform.status(platformIdOf(row), ctx.callOptions(row));
      const adopted = adoptSaleRecord(ctx, ctx.journal.require(clientTransactionId), record);
      if (adopted.final || adopted.unknownStatus) this.walletFinal(adopted.row);
      return toView(adopted.row);
    }
    // An answer kept until the journal writes (outcome-recorder.ts) is not looked up again.
    if (row.state === 'in_flight' && !outcomeKept(ctx, clientTransactionId)) await this.resolveOperation(row);
    if (row.state === 'pending') {
      const record = await ctx.platform.status(statusIdOf(row), ctx.callOptions(row));
      recordOrKeep(ctx, row, () => applyOperationRecord(ctx, row, record).row);
    }
    return toView(ctx.journal.require(clientTransactionId));
  }

  list(query: ListQuery = {}): TransactionView[] {
    const range = query.date !== undefined ? localDayRange(query.date) : undefined;
    let after: { createdAt: string; clientTransactionId: string } | undefined;
    if (query.after !== undefined) {
      const row = this.ctx.journal.get(query.after);
      // A row outside the operator's own list is answered as an unknown id: a paired register
      // learns nothing of another's sales by paging (docs/registers.md).
      if (row === undefined || (query.operator !== undefined && row.operator !== query.operator))
        throw new AgentError(
          ErrorCodes.API_BAD_REQUEST,
          `after: no transaction ${query.after} in the journal (pass the last id of the page before)`,
        );
      after = { createdAt: row.createdAt, clientTransactionId: row.clientTransactionId };
    }
    return this.ctx.journal
      .list({
        ...(range ?? {}),
        ...(query.operator !== undefined ? { operator: query.operator } : {}),
        ...(query.reference !== undefined ? { reference: query.reference } : {}),
        ...(after !== undefined ? { after } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
      })
      .map(toView);
  }

  // ------------------------------------------------------------------ relay store

  /**
   * Wallet sales waiting at the platform (a QR shown, a confirmation awaited, or a QR expired
   * with its outcome being checked: `pending`), refunds and cancels answered pending, and
   * sales whose status is a word the agent does not know (docs/payments.md, "Event relay").
   */
  pendingTracking(): PendingTracking[] {
    return this.ctx.journal
      .inStates(['awaiting_customer', 'pending', 'needs_attention'])
      .filter((r) =>
        r.state === 'needs_attention'
          ? isFollowedUnknown(r)
          : r.kind === 'sale'
            ? r.serverTransactionId !== undefined
            : r.state === 'pending',
      )
      .map(trackingOf);
  }

  applyStatusRecord(clientTransactionId: string, record: Record<string, unknown>): AppliedStatus {
    const ctx = this.ctx;
    const row = ctx.journal.require(clientTransactionId);
    if (row.kind !== 'sale') {
      // A refund or cancel answered pending: the relay publishes what it applies.
      if (row.state !== 'pending') return { newEvents: [], view: toView(row), final: true };
      const applied = applyOperationRecord(ctx, row, record, { quiet: true });
      return { newEvents: applied.newEvents, view: toView(applied.row), final: applied.final };
    }
    // The relay publishes what it applies: no second event from here.
    const adopted = adoptSaleRecord(ctx, row, record, { quiet: true });
    // A status the agent does not know keeps the sale followed (adopt.ts); a sale pending
    // after its QR expired is finished by its follow-up (qr-expiry.ts).
    const left = adopted.row.state !== 'awaiting_customer' && adopted.row.state !== 'pending';
    const final = left && !adopted.unknownStatus;
    if (left && row.state === 'awaiting_customer') this.walletFinal(adopted.row);
    return { newEvents: adopted.newEvents, view: toView(adopted.row), final };
  }

  /**
   * The QR expired (on the platform's clock) with the payment still pending: not an outcome.
   * The sale's outcome is checked with the platform: it is asked to cancel the payment and
   * the sale is followed until the platform reports it final (docs/payments.md, "Wallet
   * QR, consumer scan", expiry).
   */
  qrExpired(clientTransactionId: string): TransactionView {
    return toView(expireQr(this.ctx, clientTransactionId, (id) => this.followExpiry(id)));
  }

  private followExpiry(saleId: string): void {
    if (this.expiring.has(saleId)) return;
    this.expiring.add(saleId);
    this.ctx.background('expired QR', async () => {
      try {
        await followExpiredQr(this.ctx, saleId, (row) => this.expiryFinal(row));
      } finally {
        this.expiring.delete(saleId);
      }
    });
  }

  /** The platform's final word on a sale whose QR expired: said in the expiry's words, and shown. */
  private expiryFinal(row: JournalRow): void {
    const message = expiryOutcomeMessage(row);
    let saved = row;
    try {
      if (message !== undefined && message !== row.message) saved = this.ctx.save(row.clientTransactionId, { message });
    } catch (err) {
      // The outcome is written already (this runs as it settles): only its wording waits for a journal that writes again.
      this.ctx.log.warn(
        { clientTransactionId: row.clientTransactionId, err: describeError(err) },
        "the expired QR sale's outcome message was not written",
      );
    }
    this.walletFinal(saved);
  }

  announce(clientTransactionId: string, platformEvent?: Record<string, unknown>): void {
    this.ctx.rows.announce(clientTransactionId, platformEvent !== undefined ? { platformEvents: [platformEvent] } : {});
  }

  onTracking(listener: (t: PendingTracking) => void): () => void {
    return this.ctx.onTracking(listener);
  }

  private walletFinal(row: JournalRow): void {
    if (row.state === 'awaiting_customer') return;
    this.releaseDisplay(row.clientTransactionId);
    walletSettled(this.ctx, row);
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Start-up: resolves every row a crash left in flight or reversing, before the
   * agent takes new sales (docs/payments.md, "Start-up recovery"). Reversals that the
   * platform does not answer go on in the background.
   */
  async recover(): Promise<{ resolved: number; reversing: number; failed: number }> {
    const summary = await recoverAll(this.ctx, (op) => this.resolveOperation(op));
    // Sales whose expired QR was being checked when the agent stopped: the follow-up resumes (the relay follows their status).
    for (const row of this.ctx.journal.inStates(['pending'])) {
      if (isQrSale(row) && !this.ctx.startedHere(row.clientTransactionId)) this.followExpiry(row.clientTransactionId);
    }
    this.ctx.recoveryDone();
    if (summary.resolved + summary.reversing + summary.failed > 0)
      this.ctx.log.info(summary, 'journal recovered after restart');
    return summary;
  }

  private async resolveOperation(op: JournalRow): Promise<void> {
    const ctx = this.ctx;
    const resolver = resolverFor(ctx, op);
    if (op.kind === 'capture' && op.relatedClientTransactionId === undefined) {
      // A capture-all whose answer was lost: settled by looking at each sale.
      ctx.save(op.clientTransactionId, { state: 'approved', message: 'capture-all outcome checked per sale' });
      return;
    }
    try {
      const first = await resolver(op);
      if (first !== 'unknown') return;
    } catch (err) {
      ctx.log.warn(
        { clientTransactionId: op.clientTransactionId, err: describeError(err) },
        'lookup failed; retrying in the background',
      );
    }
    ctx.background(`resolve ${op.kind}`, () => resolveUntilKnown(ctx, op, resolver));
  }

  /** The journal takes writes and the data directory has its free-space margin (/readyz, /api/v1/status). */
  storage(): { journal: StorageCheck; disk: StorageCheck } {
    return { journal: journalCheck(this.ctx), disk: diskCheck(this.ctx, this.ctx.statfs) };
  }

  /** Resolves when no reversal or lookup is running in the background. */
  idle(): Promise<void> {
    return this.ctx.idle();
  }

  /** Stops background retries and aborts sales waiting for the customer. */
  async stop(): Promise<void> {
    this.unsubscribe();
    for (const { abort } of this.running.values()) abort.abort(new Error('stopping'));
    await Promise.allSettled([...this.running.values()].map((r) => r.run));
    this.ctx.stop();
    await this.ctx.idle();
  }

  /** For the offline uploader and tests: the journal row behind a view. */
  row(clientTransactionId: string): JournalRow | undefined {
    return this.ctx.journal.get(clientTransactionId);
  }
}

/** YYYY-MM-DD in the terminal's local time as an ISO range of created_at. */
function localDayRange(date: string): { from: string; to: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (m === null)
    throw new AgentError(ErrorCodes.INPUT_INVALID, `"${date.slice(0, 20)}" is not a date: expected YYYY-MM-DD`);
  const start = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(start.getTime()) || start.getDate() !== Number(m[3])) {
    throw new AgentError(ErrorCodes.INPUT_INVALID, `${date} is not a valid date`);
  }
  const end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1);
  return { from: start.toISOString(), to: end.toISOString() };
}
