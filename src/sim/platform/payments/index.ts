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
import { LedgerFile } from './ledger-file.js';
import { captureState, restoreState } from './ledger-state.js';

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
  /** The next `count` refunds or cancels answered pending (strict profile) get a failed result when it comes, as `PUT /sim/control/operation-failures` does. */
  failNext(count: number): void;
  /** Stops wallet timers. */
  stop(): void;
}

export interface PaymentPlatformOptions {
  /**
   * The ledger file (ledger-file.ts): the state is read from it at start and written after
   * every change, so a restarted demo platform still knows earlier sales. Without it the
   * state lives in memory only (tests, the chaos harness's platform).
   */
  stateFile?: string;
}

export function createPaymentPlatform(
  router: SimRouter,
  ctx: SimContext,
  opts: PaymentPlatformOptions = {},
): SimPaymentPlatform {
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
  let persist = (): void => undefined;
  if (opts.stateFile !== undefined) {
    const file = new LedgerFile(opts.stateFile, ctx.log);
    const state = file.load();
    if (state !== undefined) {
      restoreState(deps, state, ctx.log);
      ctx.log.info({ file: file.path, transactions: state.transactions.length }, 'demo platform ledger read');
    }
    persist = () => file.save(captureState(deps));
    // Requests write before their answer leaves (a failed write answers 500); timer outcomes right after they land.
    router.onHandled(persist);
    const afterTimer = (): void => {
      try {
        persist();
      } catch (err) {
        ctx.log.error({ err }, 'demo platform could not write its ledger');
      }
    };
    deps.wallets.onTimer = afterTimer;
    deps.completions.onTimer = afterTimer;
  }
  /** A direct call (tests, the composition root) changes the state like a request: written after it. */
  const recorded = <T>(fn: () => T): T => {
    const result = fn();
    persist();
    return result;
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
      pay: (id) => recorded(() => controlWallet(deps, id, 'pay')),
      fail: (id) => recorded(() => controlWallet(deps, id, 'fail')),
      expire: (id) => recorded(() => controlWallet(deps, id, 'expire')),
    },
    webOrder: (order) => recorded(() => webOrder(deps, order)),
    complete(id) {
      const tx = deps.store.findAny(id);
      return recorded(() => tx !== undefined && deps.completions.complete(tx));
    },
    failNext: (count) => deps.completions.failNext(count),
    stop: () => {
      // The last state, pending refunds and wallet payments included (they resume at the next start).
      try {
        persist();
      } catch (err) {
        ctx.log.error({ err }, 'demo platform could not write its ledger');
      }
      deps.wallets.stop();
      deps.completions.stop();
    },
  };
}
