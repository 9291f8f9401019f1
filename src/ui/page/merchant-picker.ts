import type { Api } from './api.js';
import { byId, show } from './dom.js';
import type { Merchant } from './types.js';

/**
 * The merchant a sale is made for, shown only when the terminal acts for more than one
 * (the merchant credentials: docs/platform-contract.md, "Tokens"). The default merchant is selected until staff pick another.
 */
export class MerchantPicker {
  private merchants: Merchant[] = [];

  constructor(private readonly api: Api) {}

  init(): void {
    const select = byId<HTMLSelectElement>('merchant');
    select.addEventListener('change', () => {
      select.dataset.touched = '1';
    });
  }

  /** The merchant list may be empty until the agent has read its credentials: asked again on each status load. */
  async load(): Promise<void> {
    const merchants = await this.api.merchants();
    const same =
      merchants.length === this.merchants.length &&
      merchants.every((m, i) => m.clientId === this.merchants[i]?.clientId && m.default === this.merchants[i]?.default);
    if (same) return;
    this.merchants = merchants;
    const select = byId<HTMLSelectElement>('merchant');
    const previous = select.dataset.touched ? select.value : undefined;
    select.replaceChildren(
      ...merchants.map((m) => {
        // The name alone: the default is the one picked at first, and a marker after the name was cut on the 800x480 screen.
        const o = new Option(m.merchantName, m.clientId);
        o.dataset.testid = `merchant-${m.clientId}`;
        return o;
      }),
    );
    const keep = previous !== undefined && merchants.some((m) => m.clientId === previous);
    select.value = keep
      ? (previous ?? '')
      : (merchants.find((m) => m.default)?.clientId ?? merchants[0]?.clientId ?? '');
    if (!keep) delete select.dataset.touched;
    show(select, merchants.length > 1);
  }

  /** The clientId to send as the sale's merchantId, when there is a choice to make. */
  selected(): string | undefined {
    if (this.merchants.length < 2) return undefined;
    const v = byId<HTMLSelectElement>('merchant').value;
    return v === '' ? undefined : v;
  }

  /** The terminal's merchants as last loaded (the by-web entry offers them too). */
  all(): readonly Merchant[] {
    return this.merchants;
  }

  nameOf(clientId: string | undefined): string | undefined {
    return this.merchants.find((m) => m.clientId === clientId || m.merchantId === clientId)?.merchantName;
  }
}
