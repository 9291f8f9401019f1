import { detailOf, detailsControl, messageOf } from './error-banner.js';
import { byId, el, fieldValue, show, today } from './dom.js';
import { canonicalAmount, dateOf, moneyOf, t as say, timeOf } from './i18n.js';
import type { PageContext } from './page-context.js';
import { amountColumn, confirmText, kindWord, operationResultText, stateText, whatText } from './texts.js';
import { reasonText } from './reason-texts.js';
import { PENDING_STATES, type AllowedOperations, type Transaction } from './types.js';

type OperationName = 'cancel' | 'refund' | 'capture';

/** The last action's result; `op` and `id` when it is an operation's row, which it then follows until final. */
interface OpResult {
  text: string;
  error: boolean;
  state?: string;
  detail?: string;
  op?: OperationName;
  id?: string;
}

export interface TransactionListHooks {
  /** Staff asked for the receipt of a final row. */
  onReceipt(clientTransactionId: string): void;
}

/**
 * Today's transactions (#transactions) and, for the one selected, the operations panel
 * (#ops): cancel / refund / capture as the agent allows them, with its reason when not.
 */
export class TransactionList {
  private list: Transaction[] = [];
  private selected: string | undefined;
  private loadTimer: number | undefined;
  /** The last action's result (or refusal): it stays until the clerk's next action, whatever reloads meanwhile. */
  private result: OpResult | undefined;
  /** An operation is on its way: no second one, and no reload re-enables the buttons meanwhile. */
  private busy = false;
  /** The operation waiting for the clerk's yes. */
  private confirming: 'cancel' | 'refund' | undefined;

  constructor(
    private readonly ctx: PageContext,
    private readonly hooks: TransactionListHooks,
  ) {}

  init(): void {
    byId('op-receipt').addEventListener('click', () => {
      const t = this.list.find((x) => x.clientTransactionId === this.selected);
      if (t !== undefined && !PENDING_STATES.has(t.state)) this.hooks.onReceipt(t.clientTransactionId);
    });
    byId('op-cancel').addEventListener('click', () => this.ask('cancel'));
    byId('op-refund').addEventListener('click', () => this.ask('refund'));
    byId('op-capture').addEventListener('click', () => void this.operate('capture'));
    byId('op-close').addEventListener('click', () => {
      this.selected = undefined;
      this.result = undefined;
      this.hideConfirm();
      show(byId('ops'), false);
      this.render();
    });
  }

  /** The sale selected in the list, if one is (cancel or refund by web starts from it). */
  selectedSale(): string | undefined {
    const t = this.list.find((x) => x.clientTransactionId === this.selected);
    return t?.kind === 'sale' ? t.clientTransactionId : undefined;
  }

  /** The attempts of the reversal of `saleId` (its cancel row still under way), when the list has it. */
  reversalAttempts(saleId: string): number | undefined {
    const op = this.list.find((x) => x.kind === 'cancel' && x.relatedClientTransactionId === saleId && (x.state === 'in_flight' || x.state === 'pending'));
    return op?.attempts;
  }

  /** The list is stale: one load shortly after, however many ask meanwhile (a burst of events). */
  schedule(): void {
    if (this.loadTimer !== undefined) return;
    this.loadTimer = window.setTimeout(() => {
      this.loadTimer = undefined;
      void this.load();
    }, 150);
  }

  async load(): Promise<void> {
    try {
      this.list = await this.ctx.api.transactions(today());
      this.followResult();
      byId('history-title').textContent = say('history.todayDate', { date: dateOf(new Date()) });
      this.render();
      if (this.selected !== undefined) await this.loadOps(this.selected);
    } catch (err) {
      this.ctx.banner.showError(err);
    }
  }

  private render(): void {
    const ol = byId('transactions');
    if (this.list.length === 0) {
      ol.replaceChildren(el('li', 'empty', say('history.empty')));
      return;
    }
    ol.replaceChildren(
      ...this.list.map((t) => {
        const li = el('li');
        li.dataset.testid = `tx-${t.clientTransactionId}`;
        li.dataset.id = t.clientTransactionId;
        li.dataset.state = t.state;
        li.dataset.kind = t.kind;
        if (t.operator !== undefined) li.dataset.operator = t.operator;
        if (t.clientTransactionId === this.selected) li.classList.add('selected');
        if (t.origin === 'web') li.classList.add('web');
        const related = this.list.find((x) => x.clientTransactionId === t.relatedClientTransactionId);
        // The merchant on each row only when the terminal serves several (the picker is shown then).
        const merchant = this.ctx.merchants.selected() !== undefined ? this.ctx.merchants.nameOf(t.merchantId ?? related?.merchantId) : undefined;
        // Who made it: the clerk's username, cli, local-api or agent (docs/architecture.md, "Journal").
        const what = el('span', 'what', [whatText(t, related), t.maskedPan, merchant, t.operator].filter(Boolean).join(' · '));
        if (t.origin === 'web') {
          // A web shop's order, there for its refund by web: marked on the row, not only in the message.
          const tag = el('span', 'origin-tag', say('history.web'));
          tag.dataset.testid = 'tx-origin-web';
          tag.title = say('history.webTitle');
          what.prepend(tag);
        }
        li.append(
          el('span', 'time', timeOf(t.createdAt)),
          what,
          el('span', 'amt', amountColumn(t)),
          el('span', `state ${t.state}`, stateText(t)),
        );
        // The agent's reason in its own (English) words: the row's title here, behind "details" in the operations panel.
        if (t.message !== undefined && t.message !== t.amountText) li.title = t.message;
        li.addEventListener('click', () => void this.select(t.clientTransactionId));
        return li;
      }),
    );
  }

  private renderOpsTitle(id: string): void {
    const t = this.list.find((x) => x.clientTransactionId === id);
    // The row's own words and time of day (today's list), never a client id or a stamp.
    byId('ops-title').textContent = t ? say('ops.title', { kind: kindWord(t.kind), amount: moneyOf(t), state: stateText(t), when: timeOf(t.createdAt) }) : '';
  }

  private async select(id: string): Promise<void> {
    if (this.busy) return;
    this.selected = id;
    this.result = undefined;
    this.hideConfirm();
    this.render();
    this.renderOpsTitle(id);
    this.renderMessage('');
    byId<HTMLInputElement>('op-amount').value = '';
    byId<HTMLInputElement>('op-approval').value = '';
    show(byId('ops'), true);
    await this.loadOps(id);
  }

  private setOp(id: string, op: AllowedOperations['cancel'] | undefined): void {
    const b = byId<HTMLButtonElement>(id);
    b.disabled = this.busy || op === undefined || !op.allowed;
    const t = this.list.find((x) => x.clientTransactionId === this.selected);
    const max = op === undefined || t === undefined ? op?.maxAmountText : moneyOf(t, op.maxAmount, op.maxAmountText);
    b.title = op === undefined ? '' : op.allowed ? say('ops.upTo', { amount: max ?? '' }) : reasonText(op);
  }

  private async loadOps(id: string): Promise<void> {
    const t = this.list.find((x) => x.clientTransactionId === id);
    this.renderOpsTitle(id);
    // Every final row has a receipt, an operation's too (docs/receipts.md, "Receipts").
    byId<HTMLButtonElement>('op-receipt').disabled = t === undefined || PENDING_STATES.has(t.state);
    this.setOp('op-cancel', undefined);
    this.setOp('op-refund', undefined);
    this.setOp('op-capture', undefined);
    const reason = t?.message !== undefined && t.message !== t.amountText ? t.message : undefined;
    if (t === undefined || t.kind !== 'sale') {
      this.renderMessage(t ? say('ops.onlySales') : '', false, reason);
      return;
    }
    try {
      const ops = await this.ctx.api.allowedOperations(id);
      if (this.selected !== id) return;
      this.setOp('op-cancel', ops.cancel);
      this.setOp('op-refund', ops.refund);
      this.setOp('op-capture', ops.capture);
      // Nothing allowed: the first reason in the clerk's language (its code's text), the agent's English words behind "details".
      const refused = [ops.cancel, ops.refund, ops.capture].find((o) => !o.allowed && (o.reasonCode !== undefined || o.reason !== undefined));
      const none = !ops.cancel.allowed && !ops.refund.allowed && !ops.capture.allowed;
      this.renderMessage(none && refused !== undefined ? reasonText(refused) : '', false, reason ?? (none ? refused?.reason : undefined));
    } catch (err) {
      this.renderMessage(messageOf(err), true, detailOf(err));
    }
  }

  /**
   * An operation answered pending (a refund answered `Accepted` before its result) or still
   * being checked: its result follows its row, so the outcome shows where the clerk acted
   * once the platform's result is final, a failure included (docs/architecture.md,
   * "Capture, cancel, refund").
   */
  private followResult(): void {
    const r = this.result;
    if (r?.op === undefined || r.id === undefined || r.state === undefined || !PENDING_STATES.has(r.state)) return;
    const row = this.list.find((x) => x.clientTransactionId === r.id);
    if (row !== undefined && row.state !== r.state) this.result = operationResult(r.op, row);
  }

  /** The message area: the last result while there is one, else what the caller says. */
  private renderMessage(text: string, error = false, technical?: string): void {
    const msg = byId('op-message');
    const r = this.result;
    msg.className = `ops-message${(r?.error ?? error) ? ' error' : ''}`;
    if (r?.state !== undefined) msg.dataset.result = r.state;
    else delete msg.dataset.result;
    const detail = r !== undefined ? r.detail : technical;
    const main = el('span', 'ops-text', r?.text ?? text);
    if (detail !== undefined && detail !== main.textContent) {
      // The technical words (ids, hosts, socket codes) behind a control, for support, never in the sentence.
      msg.replaceChildren(main, detailsControl(detail, 'tx-op-details'));
    } else msg.replaceChildren(main);
  }

  /** Cancel and refund ask first: amount, card and merchant, so the wrong row is not reversed by a slip. */
  private ask(op: 'cancel' | 'refund'): void {
    const t = this.list.find((x) => x.clientTransactionId === this.selected);
    if (t === undefined || this.busy) return;
    this.confirming = op;
    const merchant = this.ctx.merchants.selected() !== undefined ? this.ctx.merchants.nameOf(t.merchantId) : undefined;
    let box = document.getElementById('op-confirm');
    if (box === null) {
      box = el('div', 'ops-confirm');
      box.id = 'op-confirm';
      box.dataset.testid = 'tx-op-confirm';
      byId('op-message').before(box);
    }
    const yes = el('button', 'confirm-yes', say(op === 'cancel' ? 'ops.yesCancel' : 'ops.yesRefund'));
    yes.type = 'button';
    yes.dataset.testid = 'tx-op-confirm-yes';
    yes.addEventListener('click', () => {
      this.hideConfirm();
      void this.operate(op);
    });
    const no = el('button', 'confirm-no', say('ops.no'));
    no.type = 'button';
    no.dataset.testid = 'tx-op-confirm-no';
    no.addEventListener('click', () => this.hideConfirm());
    const part = fieldValue('op-amount');
    box.replaceChildren(el('span', 'confirm-text', confirmText(op, t, part === undefined ? undefined : this.partText(t, part), merchant)), yes, no);
    show(box, true);
  }

  /** A part amount as the clerk typed it (their locale's separators), with the currency. */
  private partText(t: Transaction, typed: string): string {
    return `${typed} ${t.currency}`;
  }

  private hideConfirm(): void {
    this.confirming = undefined;
    const box = document.getElementById('op-confirm');
    if (box !== null) show(box, false);
  }

  private async operate(op: OperationName): Promise<void> {
    const id = this.selected;
    if (id === undefined) return;
    const body: Record<string, unknown> = {};
    const amount = fieldValue('op-amount');
    const approvalCode = fieldValue('op-approval');
    if (amount !== undefined) body.amount = canonicalAmount(amount);
    if (approvalCode !== undefined && op !== 'capture') body.approvalCode = approvalCode;
    if (this.busy) return;
    this.busy = true;
    for (const b of ['op-cancel', 'op-refund', 'op-capture']) byId<HTMLButtonElement>(b).disabled = true;
    this.result = undefined;
    this.renderMessage(say(op === 'cancel' ? 'ops.cancelling' : op === 'refund' ? 'ops.refunding' : 'ops.capturing'));
    try {
      const t = await this.ctx.api.operate(op, id, body);
      // An operation's own row is `approved` when the platform accepted it; `pending` while
      // the platform completes it (the list shows its outcome when it is final).
      // The headline in the clerk's words; the agent's reason (its English message) behind "details".
      this.result = operationResult(op, t);
      if (t.state === 'approved' || t.state === 'pending') {
        byId<HTMLInputElement>('op-amount').value = '';
        byId<HTMLInputElement>('op-approval').value = '';
      }
    } catch (err) {
      // A refusal (approval code required, window closed, amount too high) shows here, where the action was.
      this.result = { text: messageOf(err), error: true, ...withDetail(detailOf(err)) };
    } finally {
      this.busy = false;
    }
    this.renderMessage('');
    await this.load();
  }
}

/** The result of an operation in the clerk's words; the agent's reason (its English message) behind "details". */
function operationResult(op: OperationName, t: Transaction): OpResult {
  return { text: operationResultText(op, t), error: t.state !== 'approved' && t.state !== 'pending', state: t.state, op, id: t.clientTransactionId, ...withDetail(t.message !== undefined && t.message !== t.amountText ? t.message : undefined) };
}

function withDetail(detail: string | undefined): { detail?: string } {
  return detail !== undefined ? { detail } : {};
}
