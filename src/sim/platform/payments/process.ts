import { SimHttpError } from '../router.js';
import { checkCardSale, processCard } from './process-card.js';
import { checkWalletSale, processWallet } from './process-wallet.js';
import type { ProcessBody, QrCodeBody } from './schemas.js';
import { repeated, snapshot, visible, type PaymentDeps } from './transaction.js';
import type { Caller, TransactionRecord } from './types.js';

/** Same id + same amount + same instrument = the same sale (idempotent repeat). */
function saleFingerprint(amount: { amount: number; currency: string }, instrument: ProcessBody['instrument']): string {
  return JSON.stringify([
    'Payment',
    amount.amount,
    amount.currency,
    instrument.instrumentType,
    instrument.paymentScenario ?? null,
    instrument.walletId ?? null,
    instrument.card?.maskedPan ?? null,
  ]);
}

/** POST /payment/v1/transactions/process (docs/platform-contract.md, "Endpoints"). */
export function processSale(deps: PaymentDeps, caller: Caller, body: ProcessBody): TransactionRecord {
  if (body.instrument.instrumentType === 'card') checkCardSale(body);
  else checkWalletSale(body.instrument);
  const fingerprint = saleFingerprint(body.authorizationAmount, body.instrument);
  const existing = visible(deps, deps.store.byClient(caller.merchant.merchantId, body.clientNewTransactionId));
  if (existing !== undefined) return repeated(deps, existing, fingerprint);
  // Strict profile: busy before processing, nothing recorded (docs/demo-platform.md, "Demo platform").
  if (
    deps.ctx.profile.strict &&
    body.offlineTransaction !== true &&
    deps.busy.refuse(caller.merchant.merchantId, body.clientNewTransactionId, body.authorizationAmount.amount)
  ) {
    throw new SimHttpError(429, 'TOO_MANY_REQUESTS', 'the platform is busy: try again later', { 'retry-after': '1' });
  }

  const tx =
    body.instrument.instrumentType === 'card'
      ? processCard(deps, caller, body, fingerprint)
      : processWallet(
          deps,
          caller,
          {
            wallet: body.instrument.instrumentType,
            clientTransactionId: body.clientNewTransactionId,
            clientDateTime: body.clientDateTime,
            amount: body.authorizationAmount,
            instrument: body.instrument,
          },
          fingerprint,
        );
  deps.store.add(tx);
  return snapshot(tx);
}

/**
 * POST /qrcode-payment/v1/transactions (docs/platform-contract.md, "Endpoints";
 * the answer is not specified):
 * the terminal scanned the consumer's code, so it is a merchant-scan Payment with the
 * scanned id as walletId.
 */
export function qrCodePayment(deps: PaymentDeps, caller: Caller, body: QrCodeBody): TransactionRecord {
  const instrument = {
    instrumentType: body.paymentType,
    paymentScenario: 'MerchantScan' as const,
    walletId: body.scannedPaymentId,
  };
  const fingerprint = saleFingerprint(body.paymentAmount, instrument);
  const existing = visible(deps, deps.store.byClient(caller.merchant.merchantId, body.clientTransactionId));
  if (existing !== undefined) return repeated(deps, existing, fingerprint);
  const tx = processWallet(
    deps,
    caller,
    {
      wallet: body.paymentType,
      clientTransactionId: body.clientTransactionId,
      clientDateTime: new Date(deps.ctx.now()).toISOString(),
      amount: body.paymentAmount,
      instrument,
      order: body.order,
    },
    fingerprint,
  );
  deps.store.add(tx);
  return snapshot(tx);
}
