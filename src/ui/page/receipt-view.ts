import { messageOf, detailOf } from './error-banner.js';
import { byId, show } from './dom.js';
import { t } from './i18n.js';
import type { PageContext } from './page-context.js';

type Copy = 'customer' | 'merchant';

/**
 * A final transaction's receipt (#receipt) as the printer would print it, in a monospace
 * block: the agent lays it out (docs/receipts.md, "Layout"), so the page shows exactly what
 * a receipt printer prints, with the masked card as the receipt has it. The customer copy
 * first; the merchant copy on request. 48 columns where the screen has room, else 32.
 */
export class ReceiptView {
  private id: string | undefined;
  private copy: Copy = 'customer';

  constructor(private readonly ctx: PageContext) {}

  init(): void {
    byId('receipt-close').addEventListener('click', () => this.close());
    byId('receipt-copy').addEventListener('click', () => {
      if (this.id === undefined) return;
      this.copy = this.copy === 'customer' ? 'merchant' : 'customer';
      void this.load(this.id);
    });
  }

  /** Opens the customer copy of transaction `id`. */
  async open(id: string): Promise<void> {
    this.id = id;
    this.copy = 'customer';
    await this.load(id);
  }

  close(): void {
    this.id = undefined;
    show(byId('receipt'), false);
  }

  private async load(id: string): Promise<void> {
    const box = byId('receipt');
    const pre = byId('receipt-text');
    box.dataset.copy = this.copy;
    byId('receipt-copy').textContent = this.copy === 'customer' ? t('receipt.showMerchant') : t('receipt.showCustomer');
    byId('receipt-title').textContent =
      this.copy === 'customer' ? t('receipt.customerTitle') : t('receipt.merchantTitle');
    pre.textContent = t('receipt.loading');
    delete box.dataset.loaded;
    show(box, true);
    try {
      const width = window.innerWidth >= 600 ? 48 : 32;
      const text = await this.ctx.api.receiptText(id, this.copy, width);
      if (this.id !== id) return;
      pre.textContent = text;
      pre.scrollTop = 0;
      box.dataset.loaded = this.copy;
    } catch (err) {
      if (this.id !== id) return;
      const detail = detailOf(err);
      pre.textContent = detail === undefined ? messageOf(err) : `${messageOf(err)}\n\n${detail}`;
    }
  }
}
