import { z } from 'zod';
import { amountSchema } from './money.js';
import { clientDateTimeSchema } from './dates.js';

const text = (name: string) => z.string({ error: `${name} must be a string` }).min(1, `${name} must not be empty`);
const clientId = text('clientNewTransactionId').max(64, 'clientNewTransactionId is longer than 64 characters');

/** A masked PAN keeps at most the first 6 and the last 4 digits; a full PAN is refused outright. */
const MASKED_PAN = /^[0-9]{0,6}[*Xx]{2,13}[0-9]{4}$/;

/** `instrument.card` with maskedPan, scheme, expiry, encryptedData, ksn (docs/platform-contract.md, "Decisions where the spec is silent", card fields). */
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
  /** ConsumerScan or MerchantScan for wallets; "Moto" marks a card MOTO sale (docs/platform-contract.md, "Decisions where the spec is silent"). */
  paymentScenario: z.enum(['ConsumerScan', 'MerchantScan', 'Moto'], { error: 'paymentScenario must be ConsumerScan, MerchantScan or Moto' }).optional(),
  walletId: text('walletId').optional(),
  card: cardSchema.optional(),
  /** MOTO contact details without address verification (docs/platform-contract.md, "Decisions where the spec is silent", MOTO marker). */
  email: z.email('email must be an e-mail address').optional(),
  phone: z.string().regex(/^\+?[0-9 ()-]{5,20}$/, 'phone must be a phone number').optional(),
});
export type Instrument = z.infer<typeof instrumentSchema>;

/** The process body; the card fields are top level (docs/platform-contract.md, "Endpoints" and "Decisions where the spec is silent"). */
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

/** Capture body `{clientDateTime, channel, captureAmount}` (docs/platform-contract.md, "Decisions where the spec is silent"). */
export const captureBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  captureAmount: amountSchema,
});
export type CaptureBody = z.infer<typeof captureBodySchema>;

/** Captureall body `{clientDateTime, channel}` (docs/platform-contract.md, "Decisions where the spec is silent"). */
export const captureAllBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
});

const operationInstrument = z.object({
  instrumentType: z.enum(['card', 'walletA', 'walletB'], { error: 'instrumentType must be card, walletA or walletB' }),
});

/**
 * The cancel body; `approvalCode` top level (docs/platform-contract.md, "Endpoints" and
 * "Decisions where the spec is silent"). A
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

/** The refund body; `approvalCode` top level (docs/platform-contract.md, "Endpoints" and "Decisions where the spec is silent"). */
export const refundBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  clientNewTransactionId: clientId,
  refundAmount: amountSchema,
  instrument: operationInstrument,
  approvalCode: z.string({ error: 'approvalCode must be a string' }).optional(),
});
export type RefundBody = z.infer<typeof refundBodySchema>;

/** Refundbyweb body `{clientDateTime, clientNewTransactionId, amount}` (docs/platform-contract.md, "Endpoints"). */
export const refundByWebBodySchema = z.object({
  clientDateTime: clientDateTimeSchema,
  clientNewTransactionId: clientId,
  amount: amountSchema,
});
export type RefundByWebBody = z.infer<typeof refundByWebBodySchema>;

/** The terminal QR call's body (docs/platform-contract.md, "Endpoints"). */
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
