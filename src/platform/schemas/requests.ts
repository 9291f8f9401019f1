import { z } from 'zod';
import { amountRequest, clientDateTime } from './common.js';

/**
 * Request bodies of the payment API (docs/platform-contract.md, "Endpoints") with the
 * placements the agent decided where the spec is silent (card fields, capture,
 * refundbyweb, approval code: docs/platform-contract.md, "Decisions where the spec is
 * silent").
 */

const nonEmpty = z.string().min(1, 'must not be empty');
const id = z.string().min(1, 'must not be empty').max(64, 'at most 64 characters');

/** A masked PAN: at most the first 6 and last 4 digits visible (docs/architecture.md, "Invariants" 4: never a full PAN). */
export const maskedPan = z
  .string()
  .regex(/^\d{0,6}[*Xx\u2022]{2,}\d{0,4}$/, 'expected a masked PAN (first 6 / last 4 digits at most, the rest masked)');

/** Card data sent as `instrument.card` (docs/platform-contract.md, "Decisions where the spec is silent"). */
export const cardInstrument = z.strictObject({
  maskedPan: maskedPan.optional(),
  scheme: z.string().optional(),
  expiry: z.string().optional(),
  encryptedData: z.string().optional(),
  ksn: z.string().optional(),
});

/**
 * ConsumerScan or MerchantScan, wallets only: the contract has no other value, and a card
 * sale (MOTO included) carries none (docs/platform-contract.md, "Endpoints").
 */
export const paymentScenario = z.enum(['ConsumerScan', 'MerchantScan']);
export type PaymentScenario = z.infer<typeof paymentScenario>;

export const instrumentRequest = z.strictObject({
  /** "card", or a wallet identifier (walletA / walletB). */
  instrumentType: nonEmpty,
  paymentScenario: paymentScenario.optional(),
  /** Merchant scan only: the code scanned from the consumer's wallet. */
  walletId: z.string().optional(),
  card: cardInstrument.optional(),
  /**
   * MOTO: the customer's contact (e-mail or phone); with `entryMode: Keyed` these are what
   * make a card sale a mail/telephone order (docs/platform-contract.md, "Decisions where the
   * spec is silent", MOTO).
   */
  email: z.string().optional(),
  phone: z.string().optional(),
});
export type InstrumentRequest = z.infer<typeof instrumentRequest>;

export const processRequest = z.strictObject({
  clientDateTime,
  channel: nonEmpty,
  clientNewTransactionId: id,
  authorizationAmount: amountRequest,
  instrument: instrumentRequest,
  /** Upload of a sale taken offline, with its original clientDateTime and id (docs/platform-contract.md, "Decisions where the spec is silent"). */
  offlineTransaction: z.boolean().optional(),
  entryMode: z.string().optional(),
  ksn: z.string().optional(),
  pinblock: z.string().optional(),
  pinblockFormat: z.string().optional(),
  orderChannel: z.string().optional(),
  zipCode: z.string().optional(),
  houseNumber: z.string().optional(),
});
export type ProcessRequest = z.infer<typeof processRequest>;

export const instrumentRef = z.strictObject({ instrumentType: nonEmpty });

export const cancelRequest = z.strictObject({
  clientDateTime,
  channel: nonEmpty,
  /** Technical = reversal, Functional = staff void (docs/platform-contract.md, "Endpoints", cancel). */
  cancelReason: z.enum(['Technical', 'Functional']),
  cancelAmount: amountRequest,
  instrument: instrumentRef,
  /**
   * Supervisor approval code, top level (docs/platform-contract.md, "Decisions where the spec is silent").
   * No client id: the contract's cancel body has none, so a retried cancel is recognised
   * from the sale's history instead (same section, recognising a cancel).
   */
  approvalCode: z.string().optional(),
});
export type CancelRequest = z.infer<typeof cancelRequest>;

export const refundRequest = z.strictObject({
  clientDateTime,
  channel: nonEmpty,
  clientNewTransactionId: id,
  refundAmount: amountRequest,
  instrument: instrumentRef,
  approvalCode: z.string().optional(),
});
export type RefundRequest = z.infer<typeof refundRequest>;

/** Capture body (docs/platform-contract.md, "Decisions where the spec is silent"). */
export const captureRequest = z.strictObject({ clientDateTime, channel: nonEmpty, captureAmount: amountRequest });
export type CaptureRequest = z.infer<typeof captureRequest>;

/** Captureall body (docs/platform-contract.md, "Decisions where the spec is silent"). */
export const captureAllRequest = z.strictObject({ clientDateTime, channel: nonEmpty });
export type CaptureAllRequest = z.infer<typeof captureAllRequest>;

/** Refundbyweb body; the platform picks cancel or refund (docs/platform-contract.md, "Endpoints"). */
export const refundByWebRequest = z.strictObject({ clientDateTime, clientNewTransactionId: id, amount: amountRequest });
export type RefundByWebRequest = z.infer<typeof refundByWebRequest>;

/** The terminal QR call's body (docs/platform-contract.md, "Endpoints"). */
export const qrTerminalPaymentRequest = z.strictObject({
  paymentType: nonEmpty,
  paymentScenario: nonEmpty,
  scannedPaymentId: z.string(),
  clientTransactionId: id,
  paymentAmount: amountRequest,
  order: z.strictObject({ orderId: z.string(), orderDescription: z.string() }),
});
export type QrTerminalPaymentRequest = z.infer<typeof qrTerminalPaymentRequest>;
