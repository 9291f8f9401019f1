import { AgentError, ErrorCodes } from '../../../src/core/index.js';
import type { EventBus } from '../../../src/events/index.js';
import type { AppliedStatus, PendingTracking, RelayStore } from '../../../src/payments/relay/index.js';
import type { TransactionView } from '../../../src/payments/api.js';

/** A journal stand-in that remembers how many platform events of each transaction were delivered. */
export class FakeRelayStore implements RelayStore {
  readonly views = new Map<string, TransactionView>();
  readonly delivered = new Map<string, number>();
  readonly pending = new Map<string, PendingTracking>();
  /** Ids the relay reported expired (qrExpired). */
  readonly expired: string[] = [];
  /** Ids the relay ended locally as expired (markExpired): never, since the platform's word decides. */
  readonly markedExpired: string[] = [];
  private listeners = new Set<(t: PendingTracking) => void>();

  add(id: string, opts: { expireTime?: string; delivered?: number; statusId?: string } = {}): void {
    const now = new Date().toISOString();
    this.views.set(id, {
      clientTransactionId: id,
      kind: 'sale',
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 1234,
      currency: 'EUR',
      state: 'awaiting_customer',
      platformStatus: 'Initialized',
      offline: false,
      capturedAmount: 0,
      refundedAmount: 0,
      cancelledAmount: 0,
      createdAt: now,
      updatedAt: now,
      events: [],
    });
    this.delivered.set(id, opts.delivered ?? 0);
    const t: PendingTracking = {
      clientTransactionId: id,
      startedAt: now,
      ...(opts.expireTime ? { expireTime: opts.expireTime } : {}),
      ...(opts.statusId ? { statusId: opts.statusId } : {}),
    };
    this.pending.set(id, t);
  }

  constructor(private readonly bus: EventBus) {}

  /** What the engine does when a QR is shown. */
  showQr(id: string): void {
    const t = this.pending.get(id);
    if (t) for (const l of this.listeners) l(t);
  }

  /** What the engine's journal writer publishes for the row. */
  announce(id: string, platformEvent?: Record<string, unknown>): void {
    const view = this.views.get(id);
    if (view === undefined) return;
    this.bus.publish('transaction.updated', {
      clientTransactionId: id,
      kind: view.kind,
      status: view.state,
      amount: view.amount,
      currency: view.currency,
      ...(view.method !== undefined ? { method: view.method } : {}),
      ...(view.message !== undefined ? { message: view.message } : {}),
      ...(platformEvent !== undefined ? { platformEvent } : {}),
    });
  }

  pendingTracking(): PendingTracking[] {
    return [...this.pending.values()];
  }

  applyStatusRecord(id: string, record: Record<string, unknown>): AppliedStatus {
    const view = this.views.get(id);
    if (!view) throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no transaction ${id}`);
    const events = Array.isArray(record.events) ? (record.events as Array<Record<string, unknown>>) : [];
    const seen = this.delivered.get(id) ?? 0;
    const newEvents = events.slice(seen);
    this.delivered.set(id, Math.max(seen, events.length));
    const status = String(record.transactionStatus);
    const final = status !== 'Initialized';
    const next: TransactionView = {
      ...view,
      platformStatus: status,
      state: status === 'Accepted' ? 'approved' : status === 'Initialized' ? 'awaiting_customer' : 'failed',
      events,
    };
    this.views.set(id, next);
    if (final) this.pending.delete(id);
    return { newEvents, view: next, final };
  }

  /** As the engine does: the row stays unresolved (`pending`, being checked) and followed; the cancel is the engine's business. */
  qrExpired(id: string): TransactionView {
    const view = this.views.get(id);
    if (!view) throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no transaction ${id}`);
    this.expired.push(id);
    const next: TransactionView = { ...view, state: 'pending', message: 'QR code expired: outcome being checked' };
    this.views.set(id, next);
    return next;
  }

  /** What the old contract called on expiry: a local verdict. Kept to see whether a relay still calls it. */
  markExpired(id: string): TransactionView {
    const view = this.views.get(id);
    if (!view) throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no transaction ${id}`);
    this.markedExpired.push(id);
    this.pending.delete(id);
    const next: TransactionView = { ...view, state: 'failed', message: 'QR code expired' };
    this.views.set(id, next);
    return next;
  }

  onTracking(listener: (t: PendingTracking) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function walletRecord(status: string, eventTypes: string[]): Record<string, unknown> {
  return {
    transactionType: 'Payment',
    serverTransactionId: 'S-1',
    transactionStatus: status,
    events: eventTypes.map((eventType) => ({ eventType, result: status })),
  };
}
