import type { Offline, QueueItem } from '../../offline/index.js';
import type { OfflineApiSource, OfflineItemView } from './sources.js';

/** A queue item as the local API shows it: counts and messages, no card data. */
export function offlineItemView(item: QueueItem): OfflineItemView {
  // The item's own message says why it stopped (declined, refused N times); else the last try's.
  const lastMessage = item.message ?? item.history.at(-1)?.message;
  return {
    clientTransactionId: item.clientTransactionId,
    amount: item.amount,
    currency: item.currency,
    ...(item.maskedPan !== undefined ? { maskedPan: item.maskedPan } : {}),
    state: item.state,
    attempts: item.tries,
    ...(lastMessage !== undefined ? { lastMessage } : {}),
    storedAt: item.storedAt,
    ...(item.serverTransactionId !== undefined ? { serverTransactionId: item.serverTransactionId } : {}),
    ...(item.merchantId !== undefined ? { merchantId: item.merchantId } : {}),
  };
}

/**
 * The offline component (src/offline/offline.ts) as the local API's source: levels (with the
 * items per state of the whole queue, which a paged list cannot count), flush, items, requeue.
 */
export function offlineApiSource(offline: Pick<Offline, 'api' | 'list' | 'requeue'>): OfflineApiSource {
  return {
    levels: () => offline.api.levels(),
    flush: () => offline.api.flush(),
    items: (states, page) =>
      offline
        .list({
          ...(states !== undefined ? { states } : {}),
          ...(page?.after !== undefined ? { after: page.after } : {}),
          ...(page?.limit !== undefined ? { limit: page.limit } : {}),
        })
        .map(offlineItemView),
    requeue: (id) => offlineItemView(offline.requeue(id)),
  };
}
