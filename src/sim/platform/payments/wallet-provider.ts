import type { Logger } from 'pino';
import type { TimerHandle } from '../../../core/index.js';
import type { SimContext } from '../context.js';
import { SimHttpError } from '../router.js';
import { serverTime } from './dates.js';
import type { Ledger } from './ledger.js';
import { addEvent, moveMoney } from './bookkeeping.js';
import { pspCustomerInfo, walletAAmount, walletBAmount } from './wallet-data.js';
import type { PendingWallet, SimTransaction, WalletType } from './types.js';

export type WalletOutcome = 'Accepted' | 'Failed' | 'Expired';
export type WalletAction = 'pay' | 'fail' | 'expire';

const OUTCOME: Record<WalletAction, WalletOutcome> = { pay: 'Accepted', fail: 'Failed', expire: 'Expired' };
const MESSAGE: Record<WalletOutcome, string> = {
  Accepted: 'The consumer paid',
  Failed: "The consumer's wallet refused the payment",
  Expired: 'The QR code expired before the consumer paid',
};
/** setTimeout's largest delay; a later outcome is applied when the transaction is next read. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The wallet providers' side of a pending payment (`Initialized` → `Accepted` (paid),
 * `Failed` or `Expired`: docs/demo-platform.md, "Demo platform", and
 * docs/platform-contract.md, "Decisions where the spec is silent", status values). An
 * outcome comes from a timer, from a control call, or is applied when the transaction is read after its
 * time has come on the platform clock (so tests move the clock instead of waiting).
 * Every change appends one `<wallet>PaymentNotification` event.
 */
export class WalletProvider {
  private readonly timers = new Map<string, TimerHandle>();
  /** Payments waiting for their provider, so the ledger can apply outcomes that came due. */
  private readonly waiting = new Set<SimTransaction>();

  private readonly log: Logger;
  /** Called after a timer delivered an outcome (outside any request: the ledger file is written then). */
  onTimer: () => void = () => undefined;

  constructor(
    private readonly ctx: SimContext,
    private readonly ledger: Ledger,
  ) {
    this.log = ctx.log.child({ component: 'wallet-provider' });
  }

  /** Starts waiting for the consumer (consumer scan) or for the wallet's confirmation (walletB merchant scan). */
  await(tx: SimTransaction, pending: PendingWallet): void {
    tx.pending = pending;
    this.waiting.add(tx);
    const now = this.ctx.now();
    const next = [pending.payAt, pending.expireAt].filter((t): t is number => t !== undefined);
    if (next.length === 0) return;
    const at = Math.min(...next);
    const outcome: WalletOutcome = at === pending.payAt ? 'Accepted' : 'Expired';
    // The Clock's timers do not keep the process alive.
    const timer = this.ctx.clock.setTimeout(
      () => {
        this.timers.delete(tx.record.serverTransactionId);
        try {
          if (tx.pending !== undefined && tx.record.transactionStatus === 'Initialized') {
            this.finish(tx, outcome);
            this.onTimer();
          }
        } catch (err) {
          this.log.error({ err, serverTransactionId: tx.record.serverTransactionId }, 'wallet outcome failed');
        }
      },
      Math.min(Math.max(0, at - now), MAX_TIMER_MS),
    );
    this.timers.set(tx.record.serverTransactionId, timer);
  }

  /** Applies an outcome whose time has come on the platform clock (pay wins a tie with expiry). */
  settle(tx: SimTransaction): void {
    const pending = tx.pending;
    if (pending === undefined || tx.record.transactionStatus !== 'Initialized') return;
    const now = this.ctx.now();
    const { payAt, expireAt } = pending;
    if (payAt !== undefined && payAt <= now && (expireAt === undefined || payAt <= expireAt))
      this.finish(tx, 'Accepted');
    else if (expireAt !== undefined && expireAt <= now) this.finish(tx, 'Expired');
  }

  /** Applies every outcome that has come due (before the ledger is read). */
  settleAll(): void {
    for (const tx of [...this.waiting]) this.settle(tx);
  }

  /** Control call: the consumer pays, the wallet refuses, or the QR code expires now. */
  control(tx: SimTransaction, action: WalletAction): void {
    if (tx.instrumentType === 'card' || tx.record.transactionType !== 'Payment') {
      throw new SimHttpError(422, 'NOT_A_WALLET_PAYMENT', 'only wallet payments have a wallet provider');
    }
    this.settle(tx);
    if (tx.pending === undefined || tx.record.transactionStatus !== 'Initialized') {
      throw new SimHttpError(
        409,
        'WALLET_NOT_PENDING',
        `the wallet payment is ${tx.record.transactionStatus}, not pending`,
      );
    }
    this.finish(tx, OUTCOME[action]);
  }

  /** The payment no longer waits for the provider (it was cancelled). */
  release(tx: SimTransaction): void {
    this.clearTimer(tx);
    this.waiting.delete(tx);
    tx.pending = undefined;
  }

  /** The provider stops: no timer fires and the ledger no longer applies due outcomes. */
  stop(): void {
    for (const timer of this.timers.values()) this.ctx.clock.clearTimeout(timer);
    this.timers.clear();
    this.waiting.clear();
  }

  private finish(tx: SimTransaction, outcome: WalletOutcome): void {
    this.release(tx);
    const now = this.ctx.now();
    const wallet = tx.instrumentType as WalletType;
    const paymentId = tx.paymentId ?? '';
    tx.record.transactionStatus = outcome;
    addEvent(tx, now, `${wallet}PaymentNotification`, {
      result: outcome,
      resultMessage: MESSAGE[outcome],
      resultData: {
        paymentId,
        paymentAmount: wallet === 'walletA' ? walletAAmount(tx.amount) : walletBAmount(tx.amount),
        ...(outcome === 'Accepted'
          ? { paymentTime: serverTime(now), pspCustomerInfo: pspCustomerInfo(wallet, paymentId) }
          : {}),
      },
    });
    if (outcome === 'Accepted') moveMoney(this.ledger, tx, now, 'sale', tx.amount.amount, tx.amount.amount);
    this.log.info({ serverTransactionId: tx.record.serverTransactionId, wallet, outcome }, 'wallet payment outcome');
  }

  private clearTimer(tx: SimTransaction): void {
    const timer = this.timers.get(tx.record.serverTransactionId);
    if (timer !== undefined) this.ctx.clock.clearTimeout(timer);
    this.timers.delete(tx.record.serverTransactionId);
  }
}
