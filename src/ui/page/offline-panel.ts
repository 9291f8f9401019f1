import type { Api } from './api.js';
import { byId, el, show } from './dom.js';
import { showFailure } from './error-banner.js';
import { money, t, timeOf } from './i18n.js';
import type { OfflineFlushResult, OfflineItem } from './types.js';

/**
 * The offline queue at the counter: what is waiting, what the platform declined after the
 * customer left, what needs staff; "send now" and "queue again" (offline
 * payments whose forwarding staff can see and force: docs/architecture.md, "Local API and
 * counter page").
 */

function stateText(state: OfflineItem['state']): string {
  return t(`queue.${state}`);
}

/** Staff act on these first. */
const ORDER: Record<OfflineItem['state'], number> = { needs_attention: 0, declined_after_upload: 1, uploading: 2, queued: 3, uploaded: 4 };

export interface OfflinePanelHooks {
  /** An error the person at the counter should read. */
  onError(err: unknown): void;
  /** The queue changed: reload the badge and today's list. */
  onChanged(): void;
}

export function flushText(r: OfflineFlushResult): string {
  if (r.platform === 'offline') return t('flush.offline', { remaining: r.remaining });
  const parts = [t('flush.sent', { count: r.uploaded })];
  if (r.declinedAfterUpload) parts.push(t('flush.declined', { count: r.declinedAfterUpload }));
  if (r.needsAttention) parts.push(t('flush.attention', { count: r.needsAttention }));
  const others = r.failed - (r.declinedAfterUpload ?? 0) - (r.needsAttention ?? 0);
  if (others > 0) parts.push(t('flush.notSent', { count: others }));
  return t('flush.result', { parts: parts.join(', '), remaining: r.remaining });
}

export class OfflinePanel {
  private items: OfflineItem[] = [];
  private loading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly api: Api,
    private readonly hooks: OfflinePanelHooks,
  ) {}

  get open(): boolean {
    return !byId('offline-panel').hidden;
  }

  init(): void {
    byId('offline').addEventListener('click', () => (this.open ? this.close() : void this.show()));
    byId('offline-close').addEventListener('click', () => this.close());
    byId('offline-flush').addEventListener('click', () => void this.flush());
  }

  async show(): Promise<void> {
    this.message('');
    show(byId('offline-panel'), true);
    byId('offline').setAttribute('aria-expanded', 'true');
    await this.reload();
  }

  close(): void {
    show(byId('offline-panel'), false);
    byId('offline').setAttribute('aria-expanded', 'false');
  }

  /** Reloads while open; calls arriving meanwhile (a burst of events) make one more load. */
  async reload(): Promise<void> {
    if (!this.open) return;
    if (this.loading !== undefined) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        try {
          const { offline, items } = await this.api.offline();
          this.items = items;
          this.render(offline === null ? t('queue.notRunning') : undefined);
        } catch (err) {
          this.failure(err);
        }
      } while (this.again && this.open);
    })();
    try {
      await this.loading;
    } finally {
      this.loading = undefined;
    }
  }

  private message(text: string, error = false): void {
    const m = byId('offline-message');
    m.textContent = text;
    m.classList.toggle('error', error);
  }

  private failure(err: unknown): void {
    this.message('', true);
    showFailure(byId('offline-message'), err, 'offline-error-details');
  }

  private render(absent?: string): void {
    const attention = this.items.filter((i) => i.state === 'needs_attention').length;
    const waiting = this.items.filter((i) => i.state === 'queued' || i.state === 'uploading').length;
    const declined = this.items.filter((i) => i.state === 'declined_after_upload').length;
    byId('offline-summary').textContent =
      absent ??
      [t('queue.waiting', { count: waiting }), attention ? t('queue.attention', { count: attention }) : '', declined ? t('queue.declinedAfterUpload', { count: declined }) : '']
        .filter(Boolean)
        .join(' · ');
    byId<HTMLButtonElement>('offline-flush').disabled = absent !== undefined || waiting === 0;
    const list = byId('offline-items');
    if (this.items.length === 0) {
      list.replaceChildren(el('li', 'empty', absent === undefined ? t('queue.empty') : ''));
      return;
    }
    const sorted = [...this.items].sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.storedAt.localeCompare(b.storedAt));
    list.replaceChildren(...sorted.map((i) => this.row(i)));
  }

  private row(i: OfflineItem): HTMLLIElement {
    const li = el('li', `oq ${i.state}`);
    li.dataset.testid = `offline-item-${i.clientTransactionId}`;
    li.dataset.state = i.state;
    li.append(
      el('span', 'time', timeOf(i.storedAt)),
      el('span', 'what', [money(i.amount, i.currency, i.amountText), i.maskedPan].filter(Boolean).join(' · ')),
      el('span', 'oq-state', stateText(i.state)),
    );
    const detail = el('span', 'oq-detail', [i.lastMessage, i.attempts > 0 ? t('queue.tries', { count: i.attempts }) : ''].filter(Boolean).join(' · '));
    detail.dataset.testid = `offline-item-message-${i.clientTransactionId}`;
    li.append(detail);
    if (i.state === 'needs_attention') {
      const b = el('button', 'oq-requeue', t('queue.requeue'));
      b.type = 'button';
      b.dataset.testid = `offline-requeue-${i.clientTransactionId}`;
      b.title = t('queue.requeueTitle');
      b.addEventListener('click', () => void this.requeue(i, b));
      li.append(b);
    }
    return li;
  }

  private async requeue(i: OfflineItem, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      const item = await this.api.requeueOffline(i.clientTransactionId);
      this.message(t('queue.requeued', { amount: money(item.amount, item.currency, item.amountText) }));
    } catch (err) {
      button.disabled = false;
      this.failure(err);
    }
    this.hooks.onChanged();
    await this.reload();
  }

  private async flush(): Promise<void> {
    const b = byId<HTMLButtonElement>('offline-flush');
    b.disabled = true;
    this.message(t('queue.sending'));
    try {
      this.message(flushText(await this.api.flushOffline()));
    } catch (err) {
      this.failure(err);
      this.hooks.onError(err);
    }
    this.hooks.onChanged();
    await this.reload();
  }
}
