import { messageOf } from './error-banner.js';
import { byId, el, fieldValue, show, timeOf, today } from './dom.js';
import type { PageContext } from './page-context.js';
import { methodText, stateText } from './texts.js';
import type { AllowedOperations, Transaction } from './types.js';

type OperationName = 'cancel' | 'refund' | 'capture';

/**
 * Today's transactions (#transactions) and, for the one selected, the operations panel
 * (#ops): cancel / refund / capture as the agent allows them, with its reason when not.
 */
export class TransactionList {
  private list: Transaction[] = [];
  private selected: string | undefined;
  private loadTimer: number | undefined;

  constructor(private readonly ctx: PageContext) {}

  init(): void {
    byId('op-cancel').addEventListener('click', () => void this.operate('cancel'));
    byId('op-refund').addEventListener('click', () => void this.operate('refund'));
    byId('op-capture').addEventListener('click', () => void this.operate('capture'));
    byId('op-close').addEventListener('click', () => {
      this.selected = undefined;
      show(byId('ops'), false);
      this.render();
    });
  }

  /** The sale selected in the list, if one is (cancel or refund by web starts from it). */
  selectedSale(): string | undefined {
    const t = this.list.find((x) => x.clientTransactionId === this.selected);
    return t?.kind === 'sale' ? t.clientTransactionId : undefined;
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
      this.render();
      if (this.selected !== undefined) await this.loadOps(this.selected);
    } catch (err) {
      this.ctx.banner.show(messageOf(err));
    }
  }

  private render(): void {
    const ol = byId('transactions');
    if (this.list.length === 0) {
      ol.replaceChildren(el('li', 'empty', 'No transactions today.'));
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
        const related = this.list.find((x) => x.clientTransactionId === t.relatedClientTransactionId);
        const kind = t.kind.charAt(0).toUpperCase() + t.kind.slice(1);
        const what = t.kind === 'sale' ? methodText(t) : related ? `${kind} of ${methodText(related)} ${related.amountText}` : kind;
        li.append(
          el('span', 'time', timeOf(t.createdAt)),
          // Who made it: the clerk's username, cli, local-api or agent (docs/architecture.md, "Journal").
          el('span', 'what', [what, t.maskedPan, t.operator].filter(Boolean).join(' · ')),
          el('span', 'amt', t.kind === 'sale' ? t.amountText : `−${t.amountText}`),
          el('span', `state ${t.state}`, stateText(t)),
        );
        li.addEventListener('click', () => void this.select(t.clientTransactionId));
        return li;
      }),
    );
  }

  private renderOpsTitle(id: string): void {
    const t = this.list.find((x) => x.clientTransactionId === id);
    byId('ops-title').textContent = t ? `${t.kind} ${t.amountText} · ${t.state.replace(/_/g, ' ')}` : id;
  }

  private async select(id: string): Promise<void> {
    this.selected = id;
    this.render();
    this.renderOpsTitle(id);
    byId('op-message').textContent = '';
    byId<HTMLInputElement>('op-amount').value = '';
    show(byId('ops'), true);
    await this.loadOps(id);
  }

  private setOp(id: string, op: AllowedOperations['cancel'] | undefined): void {
    const b = byId<HTMLButtonElement>(id);
    b.disabled = op === undefined || !op.allowed;
    b.title = op === undefined ? '' : op.allowed ? `up to ${op.maxAmountText}` : (op.reason ?? 'not allowed');
  }

  private async loadOps(id: string): Promise<void> {
    const t = this.list.find((x) => x.clientTransactionId === id);
    this.renderOpsTitle(id);
    this.setOp('op-cancel', undefined);
    this.setOp('op-refund', undefined);
    this.setOp('op-capture', undefined);
    if (t === undefined || t.kind !== 'sale') {
      byId('op-message').textContent = t ? 'Only sales can be cancelled, refunded or captured.' : '';
      return;
    }
    try {
      const ops = await this.ctx.api.allowedOperations(id);
      if (this.selected !== id) return;
      this.setOp('op-cancel', ops.cancel);
      this.setOp('op-refund', ops.refund);
      this.setOp('op-capture', ops.capture);
      const why = [ops.cancel, ops.refund, ops.capture].filter((o) => !o.allowed && o.reason).map((o) => o.reason);
      const msg = byId('op-message');
      if (msg.dataset.result === undefined) {
        msg.className = 'ops-message';
        msg.textContent = why.length > 0 && !ops.cancel.allowed && !ops.refund.allowed && !ops.capture.allowed ? (why[0] ?? '') : '';
      }
    } catch (err) {
      const msg = byId('op-message');
      msg.className = 'ops-message error';
      msg.textContent = messageOf(err);
    }
  }

  private async operate(op: OperationName): Promise<void> {
    const id = this.selected;
    if (id === undefined) return;
    const body: Record<string, unknown> = {};
    const amount = fieldValue('op-amount');
    const approvalCode = fieldValue('op-approval');
    if (amount !== undefined) body.amount = amount;
    if (approvalCode !== undefined && op !== 'capture') body.approvalCode = approvalCode;
    const msg = byId('op-message');
    for (const b of ['op-cancel', 'op-refund', 'op-capture']) byId<HTMLButtonElement>(b).disabled = true;
    msg.className = 'ops-message';
    msg.textContent = `${op}…`;
    try {
      const t = await this.ctx.api.operate(op, id, body);
      // An operation's own row is `approved` when the platform accepted it; `pending` while
      // the platform completes it (the list shows its outcome when it is final).
      const outcome = t.state === 'approved' ? 'done' : t.state === 'pending' ? 'pending at the platform, the list shows when it is final' : t.state.replace(/_/g, ' ');
      msg.textContent = `${op === 'cancel' ? 'Cancel' : op === 'refund' ? 'Refund' : 'Capture'} ${t.amountText}: ${outcome}${t.message ? ` (${t.message})` : ''}`;
      msg.dataset.result = t.state;
    } catch (err) {
      msg.className = 'ops-message error';
      msg.textContent = messageOf(err);
      delete msg.dataset.result;
    }
    await this.load();
    delete msg.dataset.result;
  }
}
