import { AgentError, ErrorCodes } from '../../src/core/errors.js';
import type {
  AllowedOperationsView,
  CancelRequest,
  CaptureRequest,
  ListQuery,
  PaymentsApi,
  RefundByWebRequest,
  RefundRequest,
  SaleRequest,
  StartedSale,
  TransactionView,
} from '../../src/payments/api.js';

/** A payments engine stand-in: keeps views in memory and records every call. */
export class FakePayments implements PaymentsApi {
  readonly views = new Map<string, TransactionView>();
  readonly calls: Array<{ op: string; id?: string; arg?: unknown }> = [];
  private next = 1;
  /** Pending sales end with finalState on the finishAfterGets-th read (0 = never). */
  finalState: TransactionView['state'] = 'approved';
  finishAfterGets = 0;
  /** The state refunds and cancels are answered with: `approved` (done) or `pending` (the platform completes them later). */
  operationState: 'approved' | 'pending' = 'approved';
  private gets = new Map<string, number>();
  failWith: Error | undefined;
  /** Thrown by the next cancel or refund (a refusal: approval code required, window closed), then cleared. */
  operationError: Error | undefined;
  /** How long cancel and refund take to answer (a slow platform, to try a double submit). */
  operationDelayMs = 0;
  /** Allowed operations per sale instead of the default answer. */
  readonly allowedFor = new Map<string, AllowedOperationsView>();

  private async operationGate(): Promise<void> {
    if (this.operationDelayMs > 0) await new Promise((r) => setTimeout(r, this.operationDelayMs));
    const err = this.operationError;
    this.operationError = undefined;
    if (err !== undefined) throw err;
  }

  view(partial: Partial<TransactionView> & { clientTransactionId: string }): TransactionView {
    const now = new Date().toISOString();
    const v: TransactionView = {
      kind: 'sale',
      method: 'card',
      amount: 1234,
      currency: 'EUR',
      state: 'approved',
      offline: false,
      capturedAmount: 0,
      refundedAmount: 0,
      cancelledAmount: 0,
      createdAt: now,
      updatedAt: now,
      events: [],
      ...partial,
    };
    this.views.set(v.clientTransactionId, v);
    return v;
  }

  private find(id: string): TransactionView {
    if (this.failWith) throw this.failWith;
    const v = this.views.get(id);
    if (!v) throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no transaction ${id}`);
    return v;
  }

  async startSale(req: SaleRequest): Promise<StartedSale> {
    this.calls.push({ op: 'startSale', arg: req });
    if (this.failWith) throw this.failWith;
    const id = `T-${this.next++}`;
    const v = this.view({
      clientTransactionId: id,
      method: req.method,
      ...(req.scenario ? { scenario: req.scenario } : {}),
      amount: req.amount,
      currency: req.currency,
      state: req.method === 'walletA' || req.method === 'walletB' ? 'awaiting_customer' : 'in_flight',
      ...(req.method === 'walletA' || req.method === 'walletB'
        ? { qr: { codeValue: `https://wallet.example/pay/${id}` } }
        : {}),
      ...(req.reference !== undefined ? { reference: req.reference } : {}),
    });
    this.gets.set(id, 0);
    return { clientTransactionId: id, done: Promise.resolve(v) };
  }

  async abortSale(id: string): Promise<TransactionView> {
    this.calls.push({ op: 'abortSale', id });
    const v = { ...this.find(id), state: 'cancelled' as const, message: 'aborted at the counter' };
    this.views.set(id, v);
    return v;
  }

  async cancel(id: string, req?: CancelRequest): Promise<TransactionView> {
    this.calls.push({ op: 'cancel', id, arg: req });
    await this.operationGate();
    const sale = this.find(id);
    const amount = req?.amount ?? sale.amount;
    if (this.operationState === 'approved')
      this.views.set(id, { ...sale, state: 'cancelled', cancelledAmount: amount });
    return this.view({
      clientTransactionId: `${id}-C`,
      kind: 'cancel',
      relatedClientTransactionId: id,
      amount,
      currency: sale.currency,
      state: this.operationState,
    });
  }

  async refund(id: string, req?: RefundRequest): Promise<TransactionView> {
    this.calls.push({ op: 'refund', id, arg: req });
    await this.operationGate();
    const sale = this.find(id);
    return this.view({
      clientTransactionId: `${id}-R`,
      kind: 'refund',
      relatedClientTransactionId: id,
      amount: req?.amount ?? sale.amount,
      currency: sale.currency,
      state: this.operationState,
      ...(this.operationState === 'pending'
        ? { platformStatus: 'Pending', message: 'refund pending at the platform' }
        : {}),
    });
  }

  async refundByWeb(id: string, req?: RefundByWebRequest): Promise<TransactionView> {
    this.calls.push({ op: 'refundByWeb', id, arg: req });
    const sale = this.find(id);
    return this.view({
      clientTransactionId: `${id}-W`,
      kind: 'refund',
      relatedClientTransactionId: id,
      amount: req?.amount ?? sale.amount,
      currency: sale.currency,
    });
  }

  async capture(id: string, req?: CaptureRequest): Promise<TransactionView> {
    this.calls.push({ op: 'capture', id, arg: req });
    const sale = this.find(id);
    const amount = req?.amount ?? sale.amount;
    this.views.set(id, { ...sale, capturedAmount: amount, platformStatus: 'Captured' });
    // The capture's own row, as the engine answers it.
    return this.view({
      clientTransactionId: `${id}-K`,
      kind: 'capture',
      relatedClientTransactionId: id,
      amount,
      currency: sale.currency,
      message: `captured ${(amount / 100).toFixed(2)} ${sale.currency}`,
    });
  }

  async captureAll(merchantId?: string): Promise<TransactionView[]> {
    this.calls.push({ op: 'captureAll', arg: merchantId });
    return [...this.views.values()].filter((v) => v.kind === 'sale');
  }

  async allowedOperations(id: string): Promise<AllowedOperationsView> {
    this.calls.push({ op: 'allowedOperations', id });
    const v = this.find(id);
    const set = this.allowedFor.get(id);
    if (set !== undefined) return set;
    return {
      cancel: { allowed: true, maxAmount: v.amount },
      refund: { allowed: false, maxAmount: 0, reason: 'not captured yet' },
      capture: { allowed: true, maxAmount: v.amount },
      currency: v.currency,
      fromPlatform: true,
    };
  }

  async get(id: string, opts?: { refresh?: boolean }): Promise<TransactionView> {
    this.calls.push({ op: 'get', id, arg: opts });
    const v = this.find(id);
    const n = (this.gets.get(id) ?? 0) + 1;
    this.gets.set(id, n);
    const pending = v.state === 'in_flight' || v.state === 'awaiting_customer';
    if (this.finishAfterGets > 0 && n >= this.finishAfterGets && pending) {
      const extra =
        this.finalState === 'approved'
          ? { maskedPan: '476173******0010', platformStatus: 'Accepted' }
          : { message: 'Declined by the issuer' };
      const done: TransactionView = { ...v, state: this.finalState, ...extra };
      this.views.set(id, done);
      return done;
    }
    return v;
  }

  list(query?: ListQuery): TransactionView[] {
    this.calls.push({ op: 'list', arg: query });
    const all = [...this.views.values()]
      .reverse()
      .filter((v) => query?.reference === undefined || v.reference === query.reference);
    return all.slice(0, query?.limit ?? 100);
  }
}
