import type { SimRouter } from '../router.js';
import type { SimContext } from '../context.js';
import { controlWallet, registerPaymentControl } from './control.js';
import { Ledger, type LedgerEntry, type NetCharge } from './ledger.js';
import { registerPaymentRoutes } from './routes.js';
import { TransactionStore } from './store.js';
import { snapshot, type PaymentDeps } from './transaction.js';
import { WalletProvider } from './wallet-provider.js';
import { BusyAnswers, OperationCompletions } from './completions.js';
import type { TransactionRecord } from './types.js';
import { webOrder, type WebOrder } from './web-order.js';

export type { LedgerEntry, LedgerKind, NetCharge } from './ledger.js';
export type { TransactionRecord, TransactionEvent, TransactionStatus, TransactionSource } from './types.js';

/** The demo payment API, wallet providers and the ledger. */
export interface SimPaymentPlatform {
  registerControl(router: SimRouter): void;
  /** Every money movement so far, in order. */
  ledger(): LedgerEntry[];
  /** Net charged for the sale with this client transaction id (minor units; 0 when nothing moved). */
  netCharged(clientTransactionId: string, merchantId?: string): number;
  /** Net charged per sale. */
  ledgerTotals(): NetCharge[];
  /** A transaction by server id or by any merchant's client id, as the status call shows it. */
  transaction(id: string): TransactionRecord | undefined;
  /** The wallet provider's side, as the control routes do it (id = server or client id). */
  wallet: {
    pay(id: string): TransactionRecord;
    fail(id: string): TransactionRecord;
    expire(id: string): TransactionRecord;
  };
  /** A web shop's order (a payment no terminal made), as `POST /sim/control/web-orders` makes it. */
  webOrder(order: WebOrder): TransactionRecord;
  /** Completes now a refund or cancel answered pending (strict profile); false when none waits (id = server or client id). */
  complete(id: string): boolean;
  /** Stops wallet timers. */
  stop(): void;
}

export function createPaymentPlatform(router: SimRouter, ctx: SimContext): SimPaymentPlatform {
  const ledger = new Ledger();
  const deps: PaymentDeps = {
    ctx,
    store: new TransactionStore(),
    ledger,
    wallets: new WalletProvider(ctx, ledger),
    completions: new OperationCompletions(ctx),
    busy: new BusyAnswers(),
  };
  const settleAll = (): void => {
    deps.wallets.settleAll();
    deps.completions.settleAll();
  };
  registerPaymentRoutes(router, ctx, deps);
  return {
    registerControl: (r) => registerPaymentControl(r, deps),
    ledger: () => {
      settleAll();
      return ledger.list();
    },
    netCharged: (clientTransactionId, merchantId) => {
      settleAll();
      return ledger.netCharged(clientTransactionId, merchantId);
    },
    ledgerTotals: () => {
      settleAll();
      return ledger.totals();
    },
    transaction(id) {
      const tx = deps.store.findAny(id);
      if (tx === undefined) return undefined;
      deps.wallets.settle(tx);
      deps.completions.settle(tx);
      return snapshot(tx);
    },
    wallet: {
      pay: (id) => controlWallet(deps, id, 'pay'),
      fail: (id) => controlWallet(deps, id, 'fail'),
      expire: (id) => controlWallet(deps, id, 'expire'),
    },
    webOrder: (order) => webOrder(deps, order),
    complete(id) {
      const tx = deps.store.findAny(id);
      return tx !== undefined && deps.completions.complete(tx);
    },
    stop: () => {
      deps.wallets.stop();
      deps.completions.stop();
    },
  };
}
