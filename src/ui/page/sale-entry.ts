import { byId, fieldValue, show } from './dom.js';
import { canonicalAmount, decimalSeparator, t, type CounterSettings } from './i18n.js';
import type { PageContext } from './page-context.js';
import type { Transaction } from './types.js';

export interface SaleEntryHooks {
  /** The agent took the sale: the sale panel follows it from here. */
  onStarted(sale: Transaction): void;
}

/** A payment method button's choice; walletA/walletB carry the scenario (QR for the customer or scan). */
interface Choice {
  method: string;
  scenario?: string;
}

/**
 * The new-sale form (#sale-form): amount by keyboard or keypad, currency, method, the MOTO
 * and scan fields, and "Start sale" (POST /api/v1/sales). The amount is typed with the
 * locale's decimal separator ("12,34" in German) and sent canonical ("12.34"); the
 * currencies offered are the agent's (payments.currencies), the default one selected.
 */
export class SaleEntry {
  private choice: Choice = { method: 'card' };

  constructor(
    private readonly ctx: PageContext,
    private readonly hooks: SaleEntryHooks,
  ) {}

  init(counter: CounterSettings): void {
    const currency = byId<HTMLSelectElement>('currency');
    currency.replaceChildren(...counter.currencies.map((c) => new Option(c.code, c.code)));
    if (counter.currencies.length === 0) currency.add(new Option(counter.defaultCurrency));
    currency.value = counter.defaultCurrency;
    for (const b of document.querySelectorAll<HTMLButtonElement>('.method'))
      b.addEventListener('click', () => this.choose(b));
    for (const b of document.querySelectorAll<HTMLButtonElement>('#keypad button'))
      b.addEventListener('click', () => this.keypad(b.dataset.key ?? ''));
    byId('currency').addEventListener('change', () => {
      byId('currency').dataset.touched = '1';
    });
    byId('amount').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') void this.start();
    });
    byId('start').addEventListener('click', () => void this.start());
  }

  currency(): string {
    return byId<HTMLSelectElement>('currency').value;
  }

  /** The agent's default currency is selected (and listed if missing) until staff pick one. */
  offerDefaultCurrency(code: string): void {
    const currency = byId<HTMLSelectElement>('currency');
    if (!currency.dataset.touched) {
      if (![...currency.options].some((o) => o.value === code)) currency.add(new Option(code));
      currency.value = code;
    }
  }

  /** Makes way for the running sale. */
  hide(): void {
    show(byId('sale-form'), false);
  }

  /**
   * Back for the next sale, clean: the amount and every customer field (wallet code, MOTO
   * address, e-mail, phone) empty and the default method chosen, so nothing of one customer
   * reaches the next (docs/counter-page.md, "Local API and counter page", invariant 7).
   * Currency and merchant are the counter's, not the customer's: they stay.
   */
  reset(): void {
    for (const input of document.querySelectorAll<HTMLInputElement>('#sale-form input')) input.value = '';
    const first = document.querySelector<HTMLButtonElement>('.method[data-method="card"]');
    if (first !== null) this.choose(first);
    show(byId('sale-form'), true);
  }

  private choose(button: HTMLButtonElement): void {
    const method = button.dataset.method ?? 'card';
    const scenario = button.dataset.scenario;
    this.choice = scenario === undefined ? { method } : { method, scenario };
    for (const b of document.querySelectorAll<HTMLButtonElement>('.method'))
      b.setAttribute('aria-pressed', String(b === button));
    show(byId('moto-fields'), method === 'moto');
    show(byId('scan-fields'), scenario === 'MerchantScan');
  }

  private keypad(key: string): void {
    const input = byId<HTMLInputElement>('amount');
    const separator = decimalSeparator();
    if (key === 'back') input.value = input.value.slice(0, -1);
    else if (key === '.') {
      if (!input.value.includes(separator)) input.value += separator;
    } else input.value += key;
  }

  private async start(): Promise<void> {
    this.ctx.banner.clear();
    const typed = byId<HTMLInputElement>('amount').value.trim();
    if (typed === '') {
      this.ctx.banner.show(t('sale.enterAmount'));
      return;
    }
    const amount = canonicalAmount(typed);
    const body: Record<string, unknown> = { method: this.choice.method, amount, currency: this.currency() };
    if (this.choice.scenario !== undefined) body.scenario = this.choice.scenario;
    const merchantId = this.ctx.merchants.selected();
    if (merchantId !== undefined) body.merchantId = merchantId;
    if (this.choice.method === 'moto') {
      const moto: Record<string, string> = {};
      const fields: Array<[string, string]> = [
        ['zipCode', 'moto-zip'],
        ['houseNumber', 'moto-house'],
        ['email', 'moto-email'],
        ['phone', 'moto-phone'],
      ];
      for (const [key, id] of fields) {
        const v = fieldValue(id);
        if (v !== undefined) moto[key] = v;
      }
      if (Object.keys(moto).length > 0) body.moto = moto;
    }
    if (this.choice.scenario === 'MerchantScan') {
      const walletId = fieldValue('wallet-id');
      if (walletId !== undefined) body.walletId = walletId;
    }
    const start = byId<HTMLButtonElement>('start');
    start.disabled = true;
    try {
      const t = await this.ctx.api.startSale(body);
      this.hooks.onStarted(t);
    } catch (err) {
      this.ctx.banner.showError(err);
    } finally {
      start.disabled = false;
    }
  }
}
