import { randomUUID } from 'node:crypto';
import { validationError } from './http-errors.js';
import type { Instrument } from './schemas.js';
import type { Amount } from './money.js';
import { addEvent, moveMoney } from './bookkeeping.js';
import { createTransaction, type PaymentDeps } from './transaction.js';
import { merchantScanData, newPaymentId, walletAConsumerScanData, walletBConsumerScanData } from './wallet-data.js';
import type { Caller, SimTransaction, WalletType } from './types.js';

/**
 * walletB confirms a merchant-scan payment shortly after answering it (Initialized
 * first, then Accepted, seen by the next status call after about 1 s: docs/demo-platform.md,
 * "Demo platform").
 */
export const WALLET_B_CONFIRM_MS = 1_000;

/**
 * Strict profile: the wallet provider reports a consumer-scan outcome to the platform this
 * long after the QR's expiry (the platform learns it asynchronously), so the platform still
 * answers `Initialized` after `expireTime` (docs/demo-platform.md, "Demo platform").
 */
export const STRICT_REPORT_LAG_MS = 10_000;
/** Strict profile: the consumer of a late payment pays at the provider this long before the QR's expiry (its last second). */
export const STRICT_LAST_SECOND_MS = 1_000;

/**
 * The strict profile's late payments, by the sale's amount in minor units (a deterministic
 * trigger, like the declines): the consumer pays in the QR's last second and the provider
 * reports it to the platform STRICT_REPORT_LAG_MS after the expiry, so the platform learns of
 * the payment after `expireTime`. Ending in 61, a cancel sent before the report voids the
 * payment (answered `cancelled`, no money moves); ending in 62, the provider refuses the
 * cancel (409) and the payment becomes `Accepted` when reported.
 */
export function strictLatePayment(amount: number): 'voided' | 'refused' | undefined {
  const end = amount % 100;
  return end === 61 ? 'voided' : end === 62 ? 'refused' : undefined;
}

export interface WalletSale {
  wallet: WalletType;
  clientTransactionId: string;
  clientDateTime: string;
  amount: Amount;
  instrument: Instrument;
  /** QR terminal call: the order the terminal sent. */
  order?: { orderId: string; orderDescription: string };
}

export function checkWalletSale(instrument: Instrument): void {
  const scenario = instrument.paymentScenario;
  if (scenario !== 'ConsumerScan' && scenario !== 'MerchantScan') {
    throw validationError('instrument.paymentScenario must be ConsumerScan or MerchantScan for a wallet payment');
  }
  if (scenario === 'MerchantScan' && instrument.walletId === undefined) {
    throw validationError('instrument.walletId (the scanned consumer code) is required for a merchant scan');
  }
}

/**
 * A wallet payment (docs/payments.md, "Wallet QR, consumer scan" and
 * "Wallet QR, merchant scan"): consumer scan answers
 * `Initialized` with the QR data and waits for the consumer; merchant scan is `Accepted`
 * at once for walletA and `Initialized` then `Accepted` shortly after for walletB.
 */
export function processWallet(
  deps: PaymentDeps,
  caller: Caller,
  sale: WalletSale,
  fingerprint: string,
): SimTransaction {
  const { ctx, wallets } = deps;
  const now = ctx.now();
  const { wallet, instrument } = sale;
  const paymentId = newPaymentId(now);
  const merchantScan = instrument.paymentScenario === 'MerchantScan';
  const tx = createTransaction(deps, caller, {
    now,
    type: 'Payment',
    clientTransactionId: sale.clientTransactionId,
    status: 'Initialized',
    instrumentType: wallet,
    paymentScenario: instrument.paymentScenario,
    amount: sale.amount,
    fingerprint,
    paymentId,
  });
  const paymentRequestId = randomUUID();
  addEvent(tx, now, `${wallet}Request`, {
    clientDateTime: sale.clientDateTime,
    authorizationAmount: { ...sale.amount },
    instrument: {
      instrumentType: wallet,
      paymentScenario: instrument.paymentScenario,
      ...(merchantScan ? { walletId: instrument.walletId } : {}),
    },
    ...(merchantScan ? { WalletId: instrument.walletId, paymentRequestId } : {}),
    ...(sale.order !== undefined ? { order: { ...sale.order } } : {}),
    source: { ...caller.source },
    requestor: {},
  });

  if (!merchantScan) {
    const expireAt = now + ctx.settings.qrExpirySeconds * 1000;
    addEvent(tx, now, `${wallet}ConsumerScanResult`, {
      result: 'Accepted',
      resultMessage: 'QR code issued; waiting for the consumer to pay',
      resultData:
        wallet === 'walletA'
          ? walletAConsumerScanData(paymentId, sale.amount, expireAt, caller.merchant)
          : walletBConsumerScanData(paymentId, sale.amount, now),
    });
    // ctx.settings.walletPayDelayMs 0 = the consumer pays only on a control call.
    const delay = ctx.settings.walletPayDelayMs;
    if (!ctx.profile.strict) {
      wallets.await(tx, { payAt: delay > 0 ? now + delay : undefined, expireAt });
      return tx;
    }
    // Strict: the provider's report of the outcome comes after the QR's expiry: the platform
    // answers Initialized past expireTime (docs/demo-platform.md, "Demo platform").
    const late = strictLatePayment(sale.amount.amount);
    if (late === undefined)
      wallets.await(tx, { payAt: delay > 0 ? now + delay : undefined, expireAt: expireAt + STRICT_REPORT_LAG_MS });
    else
      wallets.await(tx, {
        payAt: expireAt + STRICT_REPORT_LAG_MS,
        expireAt: undefined,
        ...(late === 'refused' ? { refusesCancelFrom: expireAt - STRICT_LAST_SECOND_MS } : {}),
      });
    return tx;
  }

  const resultData = merchantScanData(wallet, paymentId, paymentRequestId, sale.amount);
  if (wallet === 'walletA') {
    tx.record.transactionStatus = 'Accepted';
    addEvent(tx, now, 'walletAMerchantScanResult', {
      result: 'Accepted',
      resultMessage: 'Payment completed',
      resultData,
    });
    moveMoney(deps.ledger, tx, now, 'sale', sale.amount.amount, sale.amount.amount);
  } else {
    addEvent(tx, now, 'walletBMerchantScanResult', {
      result: 'Accepted',
      resultMessage: 'Payment submitted; waiting for the wallet to confirm',
      resultData,
    });
    wallets.await(tx, { payAt: now + WALLET_B_CONFIRM_MS, expireAt: undefined });
  }
  return tx;
}
