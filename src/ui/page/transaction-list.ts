import { ApiError } from './api-error.js';
import { detailOf, detailsControl, messageOf } from './error-banner.js';
import { byId, el, fieldValue, show, today } from './dom.js';
import { canonicalAmount, dateOf, moneyOf, t as say, timeOf, type TextKey } from './i18n.js';
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
  /** Staff asked to give the selected sale back by web (the by-web panel takes it, its id filled in). */
  onByWeb(sale: Transaction): void;
  /**
   * What the signed-in clerk may do (GET /session `can`). Without the permission the buttons
   * still show; a tap goes to the agent without the confirmation, and its refusal names the
   * permission (the agent checks it before anything is written: docs/counter-page.md, "Local
   * API and counter page", permissions).
   */
  can: { cancel: boolean; refund: boolean };
}

/**
 * The list's words for a cancel, refund or capture that moved nothing: declined is the
 * platform's refusal, failed that it did not happen (not sent, refused, not found, or failed
 * at the platform). The agent records either only when no money moved (docs/payments.md,
 * "Capture, cancel, refund"), so the row says so instead of showing its amount as money.
 */
const NOTHING_MOVED: Record<'cancel' | 'refund' | 'capture', Record<'declined' | 'failed', TextKey>> = {
  cancel: { declined: 'row.cancelRefused', failed: 'row.cancelNotDone' },
  refund: { declined: 'row.refundRefused', failed: 'row.refundNotDone' },
  capture: { declined: 'row.captureRefused', failed: 'row.captureNotDone' },
};

/** An operation's row that moved nothing, in the clerk's words; undefined for a sale or any other state. */
export function nothingMovedText(t: Transaction): string | undefined {
  if (t.kind === 'sale' || (t.state !== 'declined' && t.state !== 'failed')) return undefined;
  return say(NOTHING_MOVED[t.kind][t.state]);
}

/**
 * Today's transactions (#transactions) and, for the one selected, the operations panel
 * (#ops): cancel / refund / capture as the agent allows them, each one it does not allow
 * with its reason as text under the buttons (a touch screen shows no hover), "By web" for a
 * sale, and the last action's result or refusal in the clerk's words under them.
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
    // "By web" for the selected sale, beside the other operations: the clerk never types or sees its id.
    const web = el('button', '', say('ops.byWeb'));
    web.type = 'button';
    web.id = 'op-web';
    web.dataset.testid = 'tx-web';
    web.disabled = true;
    byId('op-receipt').before(web);
    web.addEventListener('click', () => {
      const t = this.list.find((x) => x.clientTransactionId === this.selected);
      if (t?.kind !== 'sale' || this.busy) return;
      this.close();
      this.hooks.onByWeb(t);
    });
    // Why an operation is not allowed, as text next to its button (not a title: no hover on a touch screen).
    const reasons = el('ul', 'ops-reasons');
    reasons.id = 'op-reasons';
    reasons.dataset.testid = 'tx-op-reasons';
    const msg = byId('op-message');
    msg.before(reasons);
    // A refusal or result is read out where it appears.
    msg.setAttribute('role', 'status');
    byId('op-receipt').addEventListener('click', () => {
      const t = this.list.find((x) => x.clientTransactionId === this.selected);
      if (t !== undefined && !PENDING_STATES.has(t.state)) this.hooks.onReceipt(t.clientTransactionId);
    });
    byId('op-cancel').addEventListener('click', () => this.ask('cancel'));
    byId('op-refund').addEventListener('click', () => this.ask('refund'));
    byId('op-capture').addEventListener('click', () => void this.operate('capture'));
    byId('op-close').addEventListener('click', () => this.close());
  }

  private close(): void {
    this.selected = undefined;
    this.result = undefined;
    this.hideConfirm();
    show(byId('ops'), false);
    this.render();
  }

  /** The attempts of the reversal of `saleId` (its cancel row still under way), when the list has it. */
  reversalAttempts(saleId: string): number | undefined {
    const op = this.list.find(
      (x) =>
        x.kind === 'cancel' &&
        x.relatedClientTransactionId === saleId &&
        (x.state === 'in_flight' || x.state === 'pending'),
    );
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
    // A row the clerk reached by keyboard keeps the focus when the list is drawn again (a select, an event).
    const focused =
      document.activeElement instanceof HTMLElement && ol.contains(document.activeElement)
        ? document.activeElement.closest('li')?.dataset.id
        : undefined;
    this.renderRows(ol);
    if (focused !== undefined) ol.querySelector<HTMLElement>(`li[data-id="${CSS.escape(focused)}"] .row`)?.focus();
  }

  private renderRows(ol: HTMLElement): void {
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
        const merchant =
          this.ctx.merchants.selected() !== undefined
            ? this.ctx.merchants.nameOf(t.merchantId ?? related?.merchantId)
            : undefined;
        // Who made it: the clerk's username, cli, local-api or agent (docs/journal.md, "Journal").
        const what = el(
          'span',
          'what',
          [whatText(t, related), t.maskedPan, merchant, t.operator].filter(Boolean).join(' · '),
        );
        if (t.origin === 'web') {
          // A web shop's order, there for its refund by web: marked on the row, not only in the message.
          const tag = el('span', 'origin-tag', say('history.web'));
          tag.dataset.testid = 'tx-origin-web';
          what.prepend(tag);
        }
        // A cancel, refund or capture that moved nothing: neutral words, no amount as if money moved, not red.
        const nothing = nothingMovedText(t);
        if (nothing !== undefined) li.dataset.moved = 'nothing';
        // The row is one button: reached with Tab, selected with Enter or Space as with a tap
        // (docs/counter-page.md, "Local API and counter page", accessibility); its click reaches the row.
        const row = el('button', 'row');
        row.type = 'button';
        row.setAttribute('aria-pressed', String(t.clientTransactionId === this.selected));
        row.append(
          el('span', 'time', timeOf(t.createdAt)),
          what,
          el('span', 'amt', nothing !== undefined ? '' : amountColumn(t)),
          el('span', nothing !== undefined ? 'state nothing-moved' : `state ${t.state}`, nothing ?? stateText(t)),
        );
        li.append(row);
        // The agent's reason in its own (English) words is behind "details" in the operations panel, never a title (no hover on a touch screen).
        li.addEventListener('click', () => void this.select(t.clientTransactionId));
        return li;
      }),
    );
  }

  private renderOpsTitle(id: string): void {
    const t = this.list.find((x) => x.clientTransactionId === id);
    // The row's own words and time of day (today's list), never a client id or a stamp.
    byId('ops-title').textContent = t
      ? say('ops.title', { kind: kindWord(t.kind), amount: moneyOf(t), state: stateText(t), when: timeOf(t.createdAt) })
      : '';
  }

  private async select(id: string): Promise<void> {
    if (this.busy) return;
    this.selected = id;
    this.result = undefined;
    this.hideConfirm();
    this.render();
    this.renderOpsTitle(id);
    this.renderMessage('');
    byId('op-reasons').replaceChildren();
    byId<HTMLInputElement>('op-amount').value = '';
    byId<HTMLInputElement>('op-approval').value = '';
    show(byId('ops'), true);
    await this.loadOps(id);
  }

  private setOp(id: string, op: AllowedOperations['cancel'] | undefined): void {
    byId<HTMLButtonElement>(id).disabled = this.busy || op === undefined || !op.allowed;
  }

  /** Each operation the agent does not allow, with its reason in the clerk's words (its code's text), under the buttons. */
  private renderReasons(ops: AllowedOperations | undefined): void {
    const lines: HTMLElement[] = [];
    if (ops !== undefined) {
      for (const [name, label] of [
        ['cancel', 'ops.cancel'],
        ['refund', 'ops.refund'],
        ['capture', 'ops.capture'],
      ] as const) {
        const op = ops[name];
        if (op.allowed) continue;
        const li = el('li');
        li.dataset.op = name;
        li.append(el('span', 'reason-op', `${say(label)}: `), el('span', 'reason-text', reasonText(op)));
        lines.push(li);
      }
    }
    byId('op-reasons').replaceChildren(...lines);
  }

  private async loadOps(id: string): Promise<void> {
    const t = this.list.find((x) => x.clientTransactionId === id);
    const panel = byId('ops');
    panel.dataset.loaded = 'false';
    this.renderOpsTitle(id);
    // Every final row has a receipt, an operation's too (docs/receipts.md, "Receipts").
    byId<HTMLButtonElement>('op-receipt').disabled = t === undefined || PENDING_STATES.has(t.state);
    byId<HTMLButtonElement>('op-web').disabled = this.busy || t?.kind !== 'sale';
    this.setOp('op-cancel', undefined);
    this.setOp('op-refund', undefined);
    this.setOp('op-capture', undefined);
    const reason = t?.message !== undefined && t.message !== t.amountText ? t.message : undefined;
    if (t === undefined || t.kind !== 'sale') {
      this.renderReasons(undefined);
      // An operation's row: what it did (a refusal: that it moved nothing), the agent's words behind "details".
      this.renderMessage(t ? (nothingMovedText(t) ?? say('ops.onlySales')) : '', false, reason);
      panel.dataset.loaded = 'true';
      return;
    }
    try {
      const ops = await this.ctx.api.allowedOperations(id);
      if (this.selected !== id) return;
      this.setOp('op-cancel', ops.cancel);
      this.setOp('op-refund', ops.refund);
      this.setOp('op-capture', ops.capture);
      this.renderReasons(ops);
      this.renderMessage('', false, reason);
    } catch (err) {
      this.renderReasons(undefined);
      this.renderMessage(messageOf(err), true, detailOf(err));
    }
    panel.dataset.loaded = 'true';
  }

  /**
   * An operation answered pending (a refund answered `Accepted` before its result) or still
   * being checked: its result follows its row, so the outcome shows where the clerk acted
   * once the platform's result is final, a failure included (docs/payments.md,
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
    // Without the permission there is nothing to confirm: the agent's refusal names what is missing, and nothing is written.
    if (!this.hooks.can[op]) {
      void this.operate(op);
      return;
    }
    this.confirming = op;
    const merchant = this.ctx.merchants.selected() !== undefined ? this.ctx.merchants.nameOf(t.merchantId) : undefined;
    let box = document.getElementById('op-confirm');
    if (box === null) {
      box = el('div', 'ops-confirm');
      box.id = 'op-confirm';
      box.dataset.testid = 'tx-op-confirm';
      // Before the reasons and the last message: the question is what the clerk reads next.
      byId('op-reasons').before(box);
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
    box.replaceChildren(
      el('span', 'confirm-text', confirmText(op, t, part === undefined ? undefined : this.partText(t, part), merchant)),
      yes,
      no,
    );
    show(box, true);
    // While the clerk answers, the reasons of the other buttons stand aside, and the question is in view on a small screen.
    show(byId('op-reasons'), false);
    box.scrollIntoView({ block: 'nearest' });
  }

  /** A part amount as the clerk typed it (their locale's separators), with the currency. */
  private partText(t: Transaction, typed: string): string {
    return `${typed} ${t.currency}`;
  }

  private hideConfirm(): void {
    this.confirming = undefined;
    const box = document.getElementById('op-confirm');
    if (box !== null) show(box, false);
    show(byId('op-reasons'), true);
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
    let fixField: string | undefined;
    for (const b of ['op-cancel', 'op-refund', 'op-capture', 'op-web']) byId<HTMLButtonElement>(b).disabled = true;
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
      fixField = fieldToFix(err);
    } finally {
      this.busy = false;
    }
    this.renderMessage('');
    await this.load();
    // The field the refusal asks the clerk to fill in again (the approval code, the amount) is ready for it.
    if (fixField !== undefined) byId<HTMLInputElement>(fixField).select();
  }
}

/** The result of an operation in the clerk's words (one that moved nothing says so); the agent's reason (its English message) behind "details". */
function operationResult(op: OperationName, t: Transaction): OpResult {
  return {
    text: nothingMovedText(t) ?? operationResultText(op, t),
    error: t.state !== 'approved' && t.state !== 'pending',
    state: t.state,
    op,
    id: t.clientTransactionId,
    ...withDetail(t.message !== undefined && t.message !== t.amountText ? t.message : undefined),
  };
}

function withDetail(detail: string | undefined): { detail?: string } {
  return detail !== undefined ? { detail } : {};
}

/** The operations panel's field a refusal's reason asks to be filled in again, if any. */
function fieldToFix(err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.reasonCode === 'APPROVAL_CODE_REQUIRED' || err.reasonCode === 'APPROVAL_CODE_INCORRECT') return 'op-approval';
  return err.reasonCode === 'AMOUNT_ABOVE_LEFT' ? 'op-amount' : undefined;
}
