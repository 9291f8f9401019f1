import type { Api } from './api.js';
import { byId, el, show } from './dom.js';
import { showFailure } from './error-banner.js';
import { money, t, timeOf } from './i18n.js';
import type { OfflineFlushResult, OfflineItem, OfflineLevels } from './types.js';

/**
 * The offline queue at the counter: what is waiting, what the platform declined after the
 * customer left, what needs staff; "send now" and "queue again" (offline
 * payments whose forwarding staff can see and force: docs/counter-page.md, "Local API and
 * counter page").
 */

function stateText(state: OfflineItem['state']): string {
  return t(`queue.${state}`);
}

/** Staff act on these first. */
const ORDER: Record<OfflineItem['state'], number> = {
  needs_attention: 0,
  declined_after_upload: 1,
  uploading: 2,
  queued: 3,
  uploaded: 4,
};

export interface OfflinePanelHooks {
  /** An error the person at the counter should read. */
  onError(err: unknown): void;
  /** The queue changed: reload the badge and today's list. */
  onChanged(): void;
}

export function flushText(r: OfflineFlushResult): string {
  if (r.platform === 'offline')
    return r.remaining > 0 ? t('flush.offline', { remaining: r.remaining }) : t('flush.offlineNone');
  const parts = [t('flush.sent', { count: r.uploaded })];
  if (r.declinedAfterUpload) parts.push(t('flush.declined', { count: r.declinedAfterUpload }));
  if (r.needsAttention) parts.push(t('flush.attention', { count: r.needsAttention }));
  const others = r.failed - (r.declinedAfterUpload ?? 0) - (r.needsAttention ?? 0);
  if (others > 0) parts.push(t('flush.notSent', { count: others }));
  return r.remaining > 0
    ? t('flush.result', { parts: parts.join(', '), remaining: r.remaining })
    : t('flush.resultNone', { parts: parts.join(', ') });
}

export class OfflinePanel {
  private items: OfflineItem[] = [];
  private levels: OfflineLevels | null = null;
  /** The last loaded item's id when the queue holds more (the answer's `next`, docs/local-api.md, "Paging"). */
  private next: string | undefined;
  /** How many items the clerk has asked to see: a reload reads pages until it has them again. */
  private wanted = 0;
  private loading: Promise<void> | undefined;
  private again = false;
  private moreAsked = false;
  /**
   * How many sales the shown "send now" result says are waiting: once the queue holds another
   * count (sent by the uploader since, or stored), the result is cleared, so no "platform not
   * reachable, 1 waiting" stays beside a queue that has sent it.
   */
  private flushSaid: number | undefined;

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
    // Opened again: the first page only.
    this.wanted = 0;
    await this.reload();
  }

  close(): void {
    show(byId('offline-panel'), false);
    byId('offline').setAttribute('aria-expanded', 'false');
  }

  /** Reloads while open; calls arriving meanwhile (a burst of events) make one more load. */
  async reload(): Promise<void> {
    return this.load(false);
  }

  /** The next page after the items shown ("more"). */
  async more(): Promise<void> {
    return this.load(true);
  }

  /** One load at a time: a reload or "more" asked meanwhile runs after it, once. */
  private async load(more: boolean): Promise<void> {
    if (!this.open) return;
    if (more) this.moreAsked = true;
    else this.again = true;
    if (this.loading !== undefined) return this.loading;
    this.loading = (async () => {
      while ((this.again || this.moreAsked) && this.open) {
        try {
          if (this.again) {
            this.again = false;
            await this.loadFirstPages();
          } else {
            this.moreAsked = false;
            await this.loadNextPage();
          }
        } catch (err) {
          this.failure(err);
        }
      }
    })();
    try {
      await this.loading;
    } finally {
      this.loading = undefined;
    }
  }

  /** From the start, page after page until as many items as were shown (the first page at least). */
  private async loadFirstPages(): Promise<void> {
    const first = await this.api.offline();
    const items = [...first.items];
    let next = first.next;
    while (next !== undefined && items.length < this.wanted && this.open) {
      const page = await this.api.offline(next);
      items.push(...page.items);
      next = page.next;
    }
    this.levels = first.offline;
    this.items = items;
    this.next = next;
    this.render(first.offline === null ? t('queue.notRunning') : undefined);
  }

  private async loadNextPage(): Promise<void> {
    if (this.next === undefined) return;
    const page = await this.api.offline(this.next);
    // Keyset pages never repeat an item; an item listed again after a reload is not doubled either.
    const known = new Set(this.items.map((i) => i.clientTransactionId));
    this.items = [...this.items, ...page.items.filter((i) => !known.has(i.clientTransactionId))];
    this.next = page.next;
    this.wanted = this.items.length;
    this.levels = page.offline;
    this.render(page.offline === null ? t('queue.notRunning') : undefined);
  }

  private message(text: string, error = false): void {
    this.flushSaid = undefined;
    const m = byId('offline-message');
    m.textContent = text;
    m.classList.toggle('error', error);
  }

  private failure(err: unknown): void {
    this.message('', true);
    showFailure(byId('offline-message'), err, 'offline-error-details');
  }

  private render(absent?: string): void {
    // The whole queue's counts per state (the levels), never the items loaded: more pages may follow.
    const states = this.levels?.states;
    const waiting = states !== undefined ? states.queued + states.uploading : 0;
    const attention = states?.needs_attention ?? 0;
    const declined = states?.declined_after_upload ?? 0;
    if (this.flushSaid !== undefined && states !== undefined && this.flushSaid !== waiting) this.message('');
    byId('offline-summary').textContent =
      absent ??
      [
        waiting > 0 ? t('queue.waiting', { count: waiting }) : t('queue.noneWaiting'),
        attention ? t('queue.attention', { count: attention }) : '',
        declined ? t('queue.declinedAfterUpload', { count: declined }) : '',
      ]
        .filter(Boolean)
        .join(' · ');
    byId<HTMLButtonElement>('offline-flush').disabled = absent !== undefined || waiting === 0;
    const list = byId('offline-items');
    if (this.items.length === 0) {
      list.replaceChildren(el('li', 'empty', absent === undefined ? t('queue.empty') : ''));
      return;
    }
    const sorted = [...this.items].sort(
      (a, b) => ORDER[a.state] - ORDER[b.state] || a.storedAt.localeCompare(b.storedAt),
    );
    list.replaceChildren(...sorted.map((i) => this.row(i)), ...(this.next !== undefined ? [this.moreRow()] : []));
  }

  /** The queue holds more than the pages loaded: the next page on a tap. */
  private moreRow(): HTMLLIElement {
    const li = el('li', 'oq-more');
    const b = el('button', 'oq-more-button', t('queue.more', { count: this.items.length }));
    b.type = 'button';
    b.dataset.testid = 'offline-more';
    b.addEventListener('click', () => {
      b.disabled = true;
      // A page loaded renders the list anew; a failed one leaves this button to try again.
      void this.more().finally(() => {
        b.disabled = false;
      });
    });
    li.append(b);
    return li;
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
    const detail = el(
      'span',
      'oq-detail',
      [i.lastMessage, i.attempts > 0 ? t('queue.tries', { count: i.attempts }) : ''].filter(Boolean).join(' · '),
    );
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
      const result = await this.api.flushOffline();
      this.message(flushText(result));
      this.flushSaid = result.remaining;
    } catch (err) {
      this.failure(err);
      this.hooks.onError(err);
    }
    this.hooks.onChanged();
    await this.reload();
  }
}
