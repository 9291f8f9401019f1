import { Api } from './api.js';
import { useSettings } from './i18n.js';
import { ErrorBanner } from './error-banner.js';
import { EndOfDayView } from './end-of-day.js';
import { LiveUpdates } from './live-updates.js';
import { Menu } from './menu.js';
import { MerchantPicker } from './merchant-picker.js';
import { OfflinePanel } from './offline-panel.js';
import { followPanels } from './panel-focus.js';
import type { PageContext } from './page-context.js';
import { ReceiptView } from './receipt-view.js';
import { RegistersPanel } from './registers-panel.js';
import { SaleEntry } from './sale-entry.js';
import { currentSession } from './session.js';
import { SignInScreen } from './sign-in.js';
import { SalePanel } from './sale-panel.js';
import { StatusBar } from './status-bar.js';
import { TransactionList } from './transaction-list.js';
import { WebRefund } from './web-refund.js';

/**
 * The counter page, wired from its sections: the status bar, the new-sale form, the running
 * sale, today's transactions with their operations, cancel or refund by web for a sale named
 * by its id, the offline queue behind the offline
 * badge, the merchant picker when there are several, a final transaction's receipt, the
 * menu of today's list with end of day and (with the permission) cash registers, and the
 * live event stream that keeps
 * them current (docs/counter-page.md, "Local API and counter page").
 */
async function main(): Promise<void> {
  // Nothing but the sign-in screen until a clerk has signed in (docs/counter-page.md, "Local API and counter page").
  const screen = new SignInScreen();
  let session = await currentSession();
  // The sign-in screen in the configured language; the clerk's own (token claims) once signed in.
  useSettings(session.counter);
  if (session.staff === undefined) session = await screen.ask(session.platformSignIn === true);
  useSettings(session.counter);
  const clerk = session.staff;
  if (clerk === undefined) return;
  screen.signedIn(clerk);
  const banner = new ErrorBanner();
  const api = new Api();
  const ctx: PageContext = { api, banner, merchants: new MerchantPicker(api) };

  const receipt = new ReceiptView(ctx);
  const endOfDay = new EndOfDayView(ctx);
  const registers = new RegistersPanel(ctx);
  const menu = new Menu({ onEndOfDay: () => void endOfDay.open(), onRegisters: () => void registers.open() });
  const list = new TransactionList(ctx, {
    onReceipt: (id) => void receipt.open(id),
    onByWeb: (t) => web.openFor(t),
    can: clerk.can,
  });
  const web = new WebRefund(ctx, { onDone: () => list.schedule() });
  const entry = new SaleEntry(ctx, {
    onStarted: (t) => {
      entry.hide();
      sale.open(t);
    },
  });
  const status = new StatusBar(ctx, entry);
  const sale = new SalePanel(ctx, {
    onChanged: () => list.schedule(),
    onClosed: () => entry.reset(),
    reversalAttempts: (saleId) => list.reversalAttempts(saleId),
    onReceipt: (id) => void receipt.open(id),
  });
  const offline = new OfflinePanel(api, {
    onError: (err) => banner.showError(err),
    onChanged: () => {
      list.schedule();
      status.refresh();
    },
  });
  const live = new LiveUpdates(ctx, { status, sale, list, offline, web });

  entry.init(session.counter);
  receipt.init();
  endOfDay.init();
  registers.init();
  menu.init(clerk.can.registers);
  sale.init();
  banner.init();
  live.init();
  list.init();
  web.init();
  // What opens over the page takes the keyboard's focus, and gives it back when closed.
  followPanels(['receipt', 'eod', 'registers', 'offline-panel', 'menu']);
  offline.init();
  ctx.merchants.init();
  live.start();
}

void main();
