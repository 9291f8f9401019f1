import { detailsControl, showFailure } from './error-banner.js';
import { byId, el, fieldValue, show } from './dom.js';
import { canonicalAmount, moneyOf, t, timeOf } from './i18n.js';
import { kindWord, methodText, stateWord } from './texts.js';
import type { PageContext } from './page-context.js';
import { PENDING_STATES, type Transaction } from './types.js';

/**
 * Cancel or refund by web (#web). A sale of today's list is given back from its operations
 * panel ("By web"): the panel names it by amount, method, card and time, and sends its id
 * itself, so the clerk never types or sees an id. "By web" in the history head is for a web
 * shop's order, which no list here shows: its order number is typed, and with several
 * merchants a picker names whose order it is (the lookup and the refund go with that
 * merchant's token; the default merchant is preselected). The platform picks cancel or
 * refund; no approval code applies (docs/platform-contract.md, "Endpoints"). The amount is
 * optional: empty = everything left.
 */
export class WebRefund {
  /** The operation last sent while the platform has not settled it: its updates refresh the message (docs/platform-contract.md, "Decisions where the spec is silent": pending refunds and cancels are followed until final). */
  private following: string | undefined;
  /** The sale of today's list being given back, when opened from its operations panel; else a web order's number is typed. */
  private sale: string | undefined;

  constructor(
    private readonly ctx: PageContext,
    private readonly hooks: { onDone(): void },
  ) {}

  init(): void {
    byId('web-open').addEventListener('click', () => this.open());
    byId('web-close').addEventListener('click', () => show(byId('web'), false));
    byId('web-send').addEventListener('click', () => void this.send());
    // The sale given back, named in the clerk's words in place of the id field.
    const line = el('div', 'web-sale');
    line.id = 'web-sale';
    line.dataset.testid = 'web-sale';
    show(line, false);
    byId('web-id').closest('.ops-row')?.before(line);
  }

  /** Opens the entry for a web shop's order: its number is typed. */
  open(): void {
    this.sale = undefined;
    const field = byId<HTMLInputElement>('web-id');
    field.value = '';
    this.showIdField(true);
    this.reset();
    field.focus();
  }

  /** Opens the entry for a sale of today's list: named, not its id; its merchant is the sale's own. */
  openFor(sale: Transaction): void {
    this.sale = sale.clientTransactionId;
    const what = [methodText(sale), sale.maskedPan].filter(Boolean).join(' · ');
    byId('web-sale').textContent = t('web.sale', {
      kind: kindWord(sale.kind),
      amount: moneyOf(sale),
      what,
      time: timeOf(sale.createdAt),
    });
    this.showIdField(false);
    this.reset();
    byId<HTMLInputElement>('web-amount').focus();
  }

  private showIdField(typed: boolean): void {
    const field = byId('web-id').closest<HTMLElement>('.field');
    if (field !== null) show(field, typed);
    show(byId('web-sale'), !typed);
  }

  private reset(): void {
    const msg = byId('web-message');
    msg.className = 'ops-message';
    msg.textContent = '';
    delete msg.dataset.result;
    this.following = undefined;
    byId<HTMLInputElement>('web-amount').value = '';
    this.fillMerchants();
    show(byId('web'), true);
  }

  private fillMerchants(): void {
    const merchants = this.ctx.merchants.all();
    const select = byId<HTMLSelectElement>('web-merchant');
    const previous = select.value;
    select.replaceChildren(
      ...merchants.map((m) => {
        const o = new Option(m.merchantName, m.clientId);
        o.dataset.testid = `web-merchant-${m.clientId}`;
        return o;
      }),
    );
    const keep = merchants.some((m) => m.clientId === previous);
    select.value = keep ? previous : (merchants.find((m) => m.default)?.clientId ?? merchants[0]?.clientId ?? '');
    // A sale of this terminal is given back with its own merchant: the picker is for a web order's number only.
    show(byId('web-merchant-field'), merchants.length > 1 && this.sale === undefined);
  }

  /** The merchant picked, sent only when there is a choice and it is not the default one (the agent's default applies then). */
  private merchantId(): string | undefined {
    const merchants = this.ctx.merchants.all();
    if (merchants.length < 2 || this.sale !== undefined) return undefined;
    const v = byId<HTMLSelectElement>('web-merchant').value;
    const chosen = merchants.find((m) => m.clientId === v);
    return chosen === undefined || chosen.default ? undefined : chosen.clientId;
  }

  private async send(): Promise<void> {
    const id = this.sale ?? fieldValue('web-id');
    const msg = byId('web-message');
    delete msg.dataset.result;
    this.following = undefined;
    if (id === undefined) {
      msg.className = 'ops-message error';
      msg.textContent = t('web.needId');
      return;
    }
    const amount = fieldValue('web-amount');
    const button = byId<HTMLButtonElement>('web-send');
    button.disabled = true;
    msg.className = 'ops-message';
    msg.textContent = t('web.busy');
    try {
      const merchantId = this.merchantId();
      const row = await this.ctx.api.refundByWeb(id, {
        ...(amount !== undefined ? { amount: canonicalAmount(amount) } : {}),
        ...(merchantId !== undefined ? { merchantId } : {}),
      });
      this.showOutcome(row);
      // An update that came before this answer is read once now, so the message cannot stay behind.
      if (this.following !== undefined) this.onTransactionUpdated(this.following);
      byId<HTMLInputElement>('web-amount').value = '';
    } catch (err) {
      msg.className = 'ops-message error';
      showFailure(msg, err, 'web-details');
    } finally {
      button.disabled = false;
    }
    this.hooks.onDone();
  }

  /** transaction.updated: a pending operation sent from here shows its final outcome when the platform settles it. */
  onTransactionUpdated(clientTransactionId: unknown): void {
    if (this.following === undefined || clientTransactionId !== this.following) return;
    const id = this.following;
    this.ctx.api.transaction(id).then(
      (row) => {
        if (this.following === id) this.showOutcome(row);
      },
      () => undefined,
    );
  }

  private showOutcome(row: Transaction): void {
    const msg = byId('web-message');
    // The operation's own row is `approved` when the platform accepted it; its message says whether it cancelled or refunded.
    // In flight: the answer was lost and the platform is being asked; sending it again could give the money back twice.
    const outcome =
      row.state === 'approved' ? t('ops.done') : row.state === 'in_flight' ? t('web.checking') : stateWord(row.state);
    // The headline in the clerk's words; the agent's reason (cancelled or refunded, why not) behind "details".
    msg.replaceChildren(t('web.result', { amount: moneyOf(row), outcome }));
    if (row.message) msg.append(detailsControl(row.message, 'web-details'));
    msg.dataset.result = row.state;
    this.following = PENDING_STATES.has(row.state) ? row.clientTransactionId : undefined;
  }
}
