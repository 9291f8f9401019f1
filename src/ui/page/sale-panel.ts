import { detailsControl } from './error-banner.js';
import { byId, el, show } from './dom.js';
import type { PageContext } from './page-context.js';
import { currentSettings, moneyOf, t as say } from './i18n.js';
import { holdText, methodText, outcomeOf, pendingText, saleHeadline, stepText } from './texts.js';
import { beingChecked, PENDING_STATES, type Transaction } from './types.js';

/** Final outcomes the clerk need not act on: the form comes back by itself after api.outcomeSeconds. */
const DONE_STATES: ReadonlySet<string> = new Set([
  'approved',
  'declined',
  'failed',
  'cancelled',
  'reversed',
  'offline_stored',
]);

export interface SalePanelHooks {
  /** The sale's row changed: today's list is stale. */
  onChanged(): void;
  /** Staff closed the outcome: the new-sale form takes the panel's place. */
  onClosed(): void;
  /** How many times the agent has sent the reversal of this sale (its cancel row in today's list), when known. */
  reversalAttempts(saleId: string): number | undefined;
  /** Staff asked for the receipt of the sale (final). */
  onReceipt(clientTransactionId: string): void;
}

/**
 * The running sale (#sale-panel): what the customer must do, the reader's steps, the QR of a
 * wallet sale, then the outcome; "Abort" while that is still possible. Events drive it; a slow
 * poll of the sale is the safety net should an event be missed.
 */
export class SalePanel {
  private sale: Transaction | undefined;
  /** The sale whose QR is shown or being fetched, so that it is fetched once. */
  private qrFor: string | undefined;
  private pollTimer: number | undefined;
  /** When the page first saw the running sale reversing: the hold screen counts from here. */
  private holdSince: number | undefined;
  private holdTimer: number | undefined;
  /** Closes a final outcome after api.outcomeSeconds, so the next customer meets a clean form. */
  private doneTimer: number | undefined;

  constructor(
    private readonly ctx: PageContext,
    private readonly hooks: SalePanelHooks,
  ) {}

  init(): void {
    byId('abort').addEventListener('click', () => void this.abort());
    byId('done').addEventListener('click', () => this.close());
    byId('sale-receipt').addEventListener('click', () => {
      if (this.sale !== undefined && !PENDING_STATES.has(this.sale.state))
        this.hooks.onReceipt(this.sale.clientTransactionId);
    });
  }

  open(t: Transaction): void {
    this.sale = t;
    this.qrFor = undefined;
    this.endHold();
    this.stopDoneTimer();
    const qr = byId<HTMLImageElement>('sale-qr');
    qr.removeAttribute('src');
    show(qr, false);
    show(byId('sale-panel'), true);
    this.render(t);
    this.schedulePoll();
    this.hooks.onChanged();
  }

  /** Reads the sale again (after an event about it, a missed event, or a resync). */
  async refresh(): Promise<void> {
    const sale = this.sale;
    if (sale === undefined) return;
    try {
      const t = await this.ctx.api.transaction(sale.clientTransactionId);
      if (this.sale?.clientTransactionId !== t.clientTransactionId) return;
      const changed = t.state !== this.sale.state;
      this.sale = t;
      this.render(t);
      // While reversing, the list is read again too: the reversal's attempts are counted on its cancel row.
      if (changed || t.state === 'reversing') this.hooks.onChanged();
    } catch (err) {
      this.ctx.banner.showError(err);
    }
    if (this.sale !== undefined && PENDING_STATES.has(this.sale.state)) this.schedulePoll();
  }

  /** transaction.updated: refreshes when it is about the running sale. */
  onTransactionUpdated(clientTransactionId: unknown): void {
    if (clientTransactionId === this.sale?.clientTransactionId) void this.refresh();
  }

  /** reader.progress: the reader's step, for the running sale (or for whichever sale, when the event names none). */
  onReaderProgress(clientTransactionId: unknown, step: string, text: string | undefined): void {
    if (
      this.sale !== undefined &&
      (clientTransactionId === undefined || clientTransactionId === this.sale.clientTransactionId) &&
      PENDING_STATES.has(this.sale.state)
    ) {
      const p = byId('sale-progress');
      p.textContent = stepText(step, text);
      p.dataset.step = step;
    }
  }

  /** display.qr: the running sale has a QR to show. */
  onQrShown(clientTransactionId: unknown): void {
    const saleId = this.sale?.clientTransactionId;
    if (saleId !== undefined && clientTransactionId === saleId && this.qrFor !== saleId) void this.loadQr(saleId);
  }

  private close(): void {
    // While a reversal goes on the clerk may start the next sale: the agent keeps reversing
    // in the background and today's list shows its outcome (docs/counter-page.md, "Local API and counter page").
    this.endHold();
    this.stopDoneTimer();
    this.sale = undefined;
    if (this.pollTimer !== undefined) clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    const qr = byId<HTMLImageElement>('sale-qr');
    if (qr.src.startsWith('blob:')) URL.revokeObjectURL(qr.src);
    show(byId('sale-panel'), false);
    this.hooks.onClosed();
  }

  private render(t: Transaction): void {
    byId('sale-panel').dataset.transactionId = t.clientTransactionId;
    byId('sale-amount').textContent = moneyOf(t);
    const merchants = this.ctx.merchants;
    byId('sale-method').textContent = [
      methodText(t),
      t.maskedPan,
      merchants.selected() !== undefined ? merchants.nameOf(t.merchantId) : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
    const pending = PENDING_STATES.has(t.state);
    const outcome = byId('sale-outcome');
    if (pending) {
      if (byId('sale-progress').dataset.step === undefined || t.state !== 'awaiting_customer')
        byId('sale-progress').textContent = pendingText(t);
      // An outcome being checked is a headline of its own ("do not hand over goods"), not a step
      // of the sale (docs/counter-page.md, "Local API and counter page", headlines).
      const checked = saleHeadline(t) === 'beingChecked' ? outcomeOf(t) : undefined;
      if (checked !== undefined) {
        outcome.textContent = checked.text;
        outcome.className = `outcome ${checked.cls}`;
        outcome.dataset.state = t.state;
      }
      show(outcome, checked !== undefined);
      byId('sale-message').textContent = '';
    } else {
      const o = outcomeOf(t);
      outcome.textContent = o.text;
      outcome.className = `outcome ${o.cls}`;
      outcome.dataset.state = t.state;
      show(outcome, true);
      byId('sale-progress').textContent = '';
      delete byId('sale-progress').dataset.step;
      // The outcome above is the catalog's headline, the whole of what the clerk reads (stored
      // offline or sent says itself); the agent's reason (its English words) is the detail.
      const message = byId('sale-message');
      message.replaceChildren();
      if (t.message) message.append(detailsControl(t.message, 'sale-details'));
      show(byId<HTMLImageElement>('sale-qr'), false);
    }
    this.renderHold(t);
    const checking = beingChecked(t);
    // A QR that expired (`pending`) has its cancel asked for already: nothing to abort, and no code to show.
    show(
      byId('abort'),
      pending && (t.state !== 'in_flight' || checking) && t.state !== 'reversing' && t.state !== 'pending',
    );
    if (pending && t.qr === undefined && this.qrFor === t.clientTransactionId)
      show(byId<HTMLImageElement>('sale-qr'), false);
    show(byId('done'), !pending || t.state === 'reversing' || checking);
    // Every final transaction has a receipt (docs/receipts.md, "Receipts").
    show(byId('sale-receipt'), !pending);
    byId('done').textContent = t.state === 'reversing' || checking ? say('panel.nextSale') : say('panel.newSale');
    if (pending && t.qr !== undefined && this.qrFor !== t.clientTransactionId) void this.loadQr(t.clientTransactionId);
    this.closeWhenDone(t);
  }

  /**
   * An outcome the clerk need not act on goes away by itself after api.outcomeSeconds; one
   * that needs a person (needs attention, the hold screen of a reversal) stays until "New sale".
   */
  private closeWhenDone(t: Transaction): void {
    const seconds = currentSettings().outcomeSeconds;
    if (!DONE_STATES.has(t.state) || this.holdSince !== undefined || seconds <= 0) {
      this.stopDoneTimer();
      return;
    }
    if (this.doneTimer !== undefined) return;
    this.doneTimer = window.setTimeout(() => {
      this.doneTimer = undefined;
      if (this.sale?.clientTransactionId === t.clientTransactionId) this.close();
    }, seconds * 1000);
  }

  private stopDoneTimer(): void {
    if (this.doneTimer !== undefined) clearTimeout(this.doneTimer);
    this.doneTimer = undefined;
  }

  /**
   * Outcome unknown: the whole screen says "Do not hand over the goods" with the reversal's
   * progress, and stays up with the final outcome until the clerk starts the next sale.
   */
  private renderHold(t: Transaction): void {
    if (t.state === 'reversing' && this.holdSince === undefined) {
      this.holdSince = Date.now();
      this.holdTimer = window.setInterval(() => this.sale !== undefined && this.renderHold(this.sale), 1000);
    }
    if (this.holdSince === undefined) return;
    const panel = byId('sale-panel');
    panel.classList.add('hold');
    let box = document.getElementById('sale-hold');
    if (box === null) {
      box = el('div', 'hold-box');
      box.id = 'sale-hold';
      box.dataset.testid = 'sale-hold';
      panel.prepend(box);
    }
    const h = holdText(
      t,
      Math.round((Date.now() - this.holdSince) / 1000),
      this.hooks.reversalAttempts(t.clientTransactionId),
    );
    box.dataset.state = t.state;
    box.replaceChildren(
      el('div', `hold-title ${h.handOver ? 'go' : 'stop'}`, h.title),
      el('div', 'hold-progress', h.progress),
    );
    if (h.detail !== undefined) box.append(detailsControl(h.detail, 'sale-hold-details'));
    if (h.attempts !== undefined) {
      const attempts = el('div', 'hold-attempts', h.attempts);
      attempts.dataset.testid = 'sale-hold-attempts';
      box.append(attempts);
    }
    show(box, true);
    if (t.state !== 'reversing' && this.holdTimer !== undefined) {
      clearInterval(this.holdTimer);
      this.holdTimer = undefined;
    }
  }

  private endHold(): void {
    if (this.holdTimer !== undefined) clearInterval(this.holdTimer);
    this.holdTimer = undefined;
    this.holdSince = undefined;
    byId('sale-panel').classList.remove('hold');
    const box = document.getElementById('sale-hold');
    if (box !== null) box.remove();
  }

  private async loadQr(id: string): Promise<void> {
    this.qrFor = id;
    try {
      const url = await this.ctx.api.qrUrl(id);
      if (this.sale?.clientTransactionId !== id || !PENDING_STATES.has(this.sale.state)) {
        URL.revokeObjectURL(url);
        return;
      }
      const img = byId<HTMLImageElement>('sale-qr');
      img.src = url;
      show(img, true);
    } catch (err) {
      this.qrFor = undefined;
      this.ctx.banner.showError(err);
    }
  }

  private schedulePoll(): void {
    if (this.pollTimer !== undefined) clearTimeout(this.pollTimer);
    this.pollTimer = window.setTimeout(() => void this.refresh(), 2000);
  }

  private async abort(): Promise<void> {
    const sale = this.sale;
    if (sale === undefined) return;
    try {
      const t = await this.ctx.api.abortSale(sale.clientTransactionId);
      this.sale = t;
      this.render(t);
      this.hooks.onChanged();
    } catch (err) {
      this.ctx.banner.showError(err);
    }
  }
}
