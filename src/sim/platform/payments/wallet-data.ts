import { randomBytes } from 'node:crypto';
import type { SeedMerchant } from '../seed.js';
import { isoWithOffset, serverTime } from './dates.js';
import { majorUnits, type Amount } from './money.js';
import { QR_CODE_IMAGE } from './qr-image.js';
import type { WalletType } from './types.js';

const UTC8_MINUTES = 8 * 60;

export const newPaymentId = (now: number): string =>
  `${new Date(now).getUTCFullYear()}${randomBytes(10).toString('hex')}`;

/** walletA amount objects carry `value` as a string of minor units (docs/platform-contract.md, "Tolerance of answers"). */
export const walletAAmount = (a: Amount): { currency: string; value: string } => ({
  currency: a.currency,
  value: String(a.amount),
});
/** walletB amount objects use currency_code and a decimal `value` string (docs/platform-contract.md, "Tolerance of answers"). */
export const walletBAmount = (a: Amount): { currency_code: string; value: string } => ({
  currency_code: a.currency,
  value: majorUnits(a.amount, a.currency),
});

export function pspCustomerInfo(
  wallet: WalletType,
  paymentId: string,
): { pspName: string; pspCustomerId: string; displayCustomerId: string } {
  const id = paymentId.slice(-8);
  return { pspName: wallet, pspCustomerId: `${wallet}-cust-${id}`, displayCustomerId: `****${id.slice(-4)}` };
}

/** QR result data of walletA (docs/platform-contract.md, "Decisions where the spec is silent", where the QR is). */
export function walletAConsumerScanData(
  paymentId: string,
  amount: Amount,
  expireAt: number,
  merchant: SeedMerchant,
): Record<string, unknown> {
  return {
    paymentId,
    paymentAmount: walletAAmount(amount),
    orderCodeForm: {
      paymentMethodType: 'walletA',
      expireTime: isoWithOffset(expireAt, UTC8_MINUTES),
      codeDetails: {
        codeValueType: 'ORDER_CODE',
        codeImage: QR_CODE_IMAGE,
        codeValue: `https://qr.wallet-a.example/pay/${paymentId}`,
        displayType: 'MIDDLEIMAGE',
      },
    },
    acquirerId: merchant.acquirerId,
  };
}

/** QR result data of walletB (docs/platform-contract.md, "Decisions where the spec is silent", where the QR is). */
export function walletBConsumerScanData(paymentId: string, amount: Amount, now: number): Record<string, unknown> {
  return {
    codeValue: `https://pay.wallet-b.example/qr/${paymentId}`,
    paymentAmount: walletBAmount(amount),
    paymentTime: serverTime(now),
    pspCustomerInfo: pspCustomerInfo('walletB', paymentId),
  };
}

/** Result data of a merchant-scan payment. */
export function merchantScanData(
  wallet: WalletType,
  paymentId: string,
  paymentRequestId: string,
  amount: Amount,
): Record<string, unknown> {
  if (wallet === 'walletA') {
    return {
      paymentRequestId,
      paymentId,
      paymentAmount: walletAAmount(amount),
      pspCustomerInfo: pspCustomerInfo('walletA', paymentId),
    };
  }
  return { paymentId, walletBAmount: walletBAmount(amount) };
}

/** The provider's answer data on cancel and refund results (kept and relayed as sent: docs/platform-contract.md, "Decisions where the spec is silent", card events). */
export function providerResultData(wallet: WalletType | 'card', merchant: SeedMerchant): Record<string, unknown> {
  return wallet === 'walletA'
    ? { acquirerId: merchant.acquirerId, pspId: 'walletA-psp' }
    : { acquirerId: merchant.acquirerId };
}

/** walletB's refund request event: fee split of the refunded gross amount. */
export function walletBRefundFees(refund: Amount): Record<string, { currency_code: string; value: string }> {
  const fee = Math.floor((refund.amount * 29) / 1000);
  const obj = (n: number) => ({ currency_code: refund.currency, value: majorUnits(n, refund.currency) });
  return {
    fee_walletB: obj(fee),
    gross_walletB: obj(refund.amount),
    partner_fee: obj(0),
    net_amount: obj(refund.amount - fee),
    total_merchant: obj(refund.amount - fee),
  };
}
