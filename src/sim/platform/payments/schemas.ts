import { z } from 'zod';
import { amountSchema } from './money.js';
import { clientDateTimeSchema } from './dates.js';

const text = (name: string) => z.string({ error: `${name} must be a string` }).min(1, `${name} must not be empty`);
const clientId = text('clientNewTransactionId').max(64, 'clientNewTransactionId is longer than 64 characters');

/** A masked PAN keeps at most the first 6 and the last 4 digits; a full PAN is refused outright. */
const MASKED_PAN = /^[0-9]{0,6}[*Xx]{2,13}[0-9]{4}$/;

/** DESIGN.md decision (card fields): `instrument.card` with maskedPan, scheme, expiry, encryptedData, ksn. */
export const cardSchema = z.object({
  maskedPan: z
    .string({ error: 'maskedPan must be a string' })
    .refine((p) => MASKED_PAN.test(p) && p.length >= 12 && p.length <= 19, { message: 'maskedPan must be a masked card number (first 6 and last 4 digits at most)' }),
  scheme: text('scheme'),
  expiry: z.string().regex(/^\d{2}\/?\d{2}$/, 'expiry must be MM/YY or MMYY').optional(),
  encryptedData: text('encryptedData').optional(),
  ksn: z.string().regex(/^[0-9A-Fa-f]{10,24}$/, 'ksn must be hexadecimal').optional(),
});

export const instrumentSchema = z.object({
  instrumentType: z.enum(['card', 'walletA', 'walletB'], { error: 'instrumentType must be card, walletA or walletB' }),
  /** Spec: ConsumerScan or MerchantScan for wallets; DESIGN.md decision: "Moto" marks a card MOTO sale. */
  paymentScenario: z.enum(['ConsumerScan', 'MerchantScan', 'Moto'], { error: 'paymentScenario must be ConsumerScan, MerchantScan or Moto' }).optional(),
  walletId: text('walletId').optional(),
  card: cardSchema.optional(),
  /** DESIGN.md decision: MOTO contact details without address verification. */
  email: z.email('email must be an e-mail address').optional(),
  phone: z.string().regex(/^\+?[0-9 ()-]{5,20}$/, 'phone must be a phone number').optional(),
});
export type Instrument = z.infer<typeof instrumentSchema>;

/** Spec "Process request body"; DESIGN.md decision: the card fields are top level. */
export const processBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  clientNewTransactionId: clientId,
  authorizationAmount: amountSchema,
  instrument: instrumentSchema,
  offlineTransaction: z.boolean({ error: 'offlineTransaction must be a boolean' }).optional(),
  entryMode: text('entryMode').optional(),
  orderChannel: text('orderChannel').optional(),
  zipCode: text('zipCode').optional(),
  houseNumber: text('houseNumber').optional(),
  ksn: z.string().regex(/^[0-9A-Fa-f]{10,24}$/, 'ksn must be hexadecimal').optional(),
  pinblock: z.string().regex(/^[0-9A-Fa-f]{16}$|^[0-9A-Fa-f]{32}$/, 'pinblock must be 16 or 32 hexadecimal digits').optional(),
  pinblockFormat: text('pinblockFormat').optional(),
});
export type ProcessBody = z.infer<typeof processBodySchema>;

/** DESIGN.md decision: capture body `{clientDateTime, channel, captureAmount}`. */
export const captureBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  captureAmount: amountSchema,
});
export type CaptureBody = z.infer<typeof captureBodySchema>;

/** DESIGN.md decision: captureall body `{clientDateTime, channel}`. */
export const captureAllBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
});

const operationInstrument = z.object({
  instrumentType: z.enum(['card', 'walletA', 'walletB'], { error: 'instrumentType must be card, walletA or walletB' }),
});

/**
 * Spec "Cancel request body"; DESIGN.md decision: `approvalCode` top level. A
 * clientNewTransactionId is optional here: when sent, a retried cancel is recognised by it.
 */
export const cancelBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  cancelReason: z.enum(['Technical', 'Functional'], { error: 'cancelReason must be Technical or Functional' }),
  cancelAmount: amountSchema,
  instrument: operationInstrument,
  clientNewTransactionId: clientId.optional(),
  approvalCode: z.string({ error: 'approvalCode must be a string' }).optional(),
});
export type CancelBody = z.infer<typeof cancelBodySchema>;

/** Spec "Refund request body"; DESIGN.md decision: `approvalCode` top level. */
export const refundBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  clientNewTransactionId: clientId,
  refundAmount: amountSchema,
  instrument: operationInstrument,
  approvalCode: z.string({ error: 'approvalCode must be a string' }).optional(),
});
export type RefundBody = z.infer<typeof refundBodySchema>;

/** DESIGN.md decision: refundbyweb body `{clientDateTime, clientNewTransactionId, amount}`. */
export const refundByWebBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  clientNewTransactionId: clientId,
  amount: amountSchema,
});
export type RefundByWebBody = z.infer<typeof refundByWebBodySchema>;

/** Spec "QR terminal call body". */
export const qrCodeBodySchema = z.object({
  paymentType: z.enum(['walletA', 'walletB'], { error: 'paymentType must be walletA or walletB' }),
  paymentScenario: z.literal('MerchantScan', { error: 'paymentScenario must be MerchantScan (the terminal scanned the consumer code)' }),
  scannedPaymentId: text('scannedPaymentId'),
  clientTransactionId: text('clientTransactionId').max(64, 'clientTransactionId is longer than 64 characters'),
  paymentAmount: amountSchema,
  order: z.object({ orderId: text('orderId'), orderDescription: z.string({ error: 'orderDescription must be a string' }) }),
});
export type QrCodeBody = z.infer<typeof qrCodeBodySchema>;

export const operationQuerySchema = z.enum(['cancel', 'refund', 'capture'], { error: 'operation must be cancel, refund or capture' });
export type OperationName = z.infer<typeof operationQuerySchema>;
