import { byId } from './dom.js';
import { t } from './i18n.js';
import type { OfflinePanel } from './offline-panel.js';
import type { PageContext } from './page-context.js';
import type { SalePanel } from './sale-panel.js';
import { EventStream } from './sse.js';
import type { StatusBar } from './status-bar.js';
import type { TransactionList } from './transaction-list.js';
import type { BusEvent } from './types.js';
import type { WebRefund } from './web-refund.js';

/** The sections the agent's events reach. */
export interface LiveSections {
  readonly status: StatusBar;
  readonly sale: SalePanel;
  readonly list: TransactionList;
  readonly offline: OfflinePanel;
  readonly web: WebRefund;
}

/**
 * The agent's event stream (GET /api/v1/events) and what each event reloads; the live badge
 * (#live) shows whether the stream is connected. A resync, or ↻ (#reload), reloads every
 * section (docs/payments.md, "Event relay").
 */
export class LiveUpdates {
  constructor(
    private readonly ctx: PageContext,
    private readonly sections: LiveSections,
  ) {}

  init(): void {
    byId('reload').addEventListener('click', () => void this.reloadAll());
  }

  /** Connects the stream and loads every section once. */
  start(): void {
    const live = byId('live');
    const stream = new EventStream({
      onEvent: (e) => this.onEvent(e),
      onResync: () => void this.reloadAll(),
      onConnection: (connected) => {
        live.className = `badge ${connected ? 'ok' : 'bad'}`;
        live.title = connected ? t('header.live') : t('header.liveLost');
        live.dataset.connected = String(connected);
        this.sections.status.streamConnected(connected);
      },
    });
    stream.start();
    void this.reloadAll();
  }

  async reloadAll(): Promise<void> {
    const { status, sale, list, offline } = this.sections;
    try {
      await status.load();
    } catch (err) {
      this.ctx.banner.showError(err);
    }
    await list.load();
    await sale.refresh();
    await offline.reload();
  }

  private onEvent(e: BusEvent): void {
    const d = e.data;
    const { status, sale, list, offline, web } = this.sections;
    switch (e.type) {
      case 'transaction.updated':
        sale.onTransactionUpdated(d.clientTransactionId);
        web.onTransactionUpdated(d.clientTransactionId);
        list.schedule();
        if (offline.open) void offline.reload();
        break;
      case 'reader.progress':
        sale.onReaderProgress(d.clientTransactionId, String(d.step), typeof d.text === 'string' ? d.text : undefined);
        break;
      case 'display.qr':
        sale.onQrShown(d.clientTransactionId);
        break;
      case 'device.status':
      case 'platform.status':
        status.refresh();
        break;
      case 'auth.status':
        // The merchants are known once the agent has read its credentials.
        void this.ctx.merchants.load().catch(() => undefined);
        break;
      case 'offline.levels':
        status.refresh();
        void offline.reload();
        break;
      case 'offline.warning':
        // e.g. a sale declined after upload: the customer has gone, staff must follow up.
        this.ctx.banner.show(t('offline.warning'), true, String(d.message));
        list.schedule();
        void offline.reload();
        break;
      case 'offline.item':
        list.schedule();
        status.refresh();
        void offline.reload();
        break;
      default:
        break;
    }
  }
}
