import { z } from 'zod';
import { amountSchema } from './money.js';
import { clientDateTimeSchema } from './dates.js';

const text = (name: string) => z.string({ error: `${name} must be a string` }).min(1, `${name} must not be empty`);
const clientId = text('clientNewTransactionId').max(64, 'clientNewTransactionId is longer than 64 characters');

/** A masked PAN keeps at most the first 6 and the last 4 digits; a full PAN is refused outright. */
const MASKED_PAN = /^[0-9]{0,6}[*Xx]{2,13}[0-9]{4}$/;

/** `instrument.card` with maskedPan, scheme, expiry, encryptedData, ksn (docs/platform-contract.md, "Decisions where the spec is silent", card fields). */
const card = z.object({
  maskedPan: z
    .string({ error: 'maskedPan must be a string' })
    .refine((p) => MASKED_PAN.test(p) && p.length >= 12 && p.length <= 19, {
      message: 'maskedPan must be a masked card number (first 6 and last 4 digits at most)',
    }),
  scheme: text('scheme'),
  expiry: z
    .string()
    .regex(/^\d{2}\/?\d{2}$/, 'expiry must be MM/YY or MMYY')
    .optional(),
  encryptedData: text('encryptedData').optional(),
  ksn: z
    .string()
    .regex(/^[0-9A-Fa-f]{10,24}$/, 'ksn must be hexadecimal')
    .optional(),
});

/** The contract's scenarios; "Moto" is an old card marker the standard profile still tolerates (docs/platform-contract.md, "Decisions where the spec is silent", MOTO). */
const contractScenario = z.enum(['ConsumerScan', 'MerchantScan'], {
  error: 'paymentScenario must be ConsumerScan or MerchantScan',
});
const tolerantScenario = z.enum(['ConsumerScan', 'MerchantScan', 'Moto'], {
  error: 'paymentScenario must be ConsumerScan, MerchantScan or Moto',
});

const instrument = z.object({
  instrumentType: z.enum(['card', 'walletA', 'walletB'], { error: 'instrumentType must be card, walletA or walletB' }),
  paymentScenario: tolerantScenario.optional(),
  walletId: text('walletId').optional(),
  card: card.optional(),
  /** MOTO contact details (docs/platform-contract.md, "Decisions where the spec is silent", MOTO). */
  email: z.email('email must be an e-mail address').optional(),
  phone: z
    .string()
    .regex(/^\+?[0-9 ()-]{5,20}$/, 'phone must be a phone number')
    .optional(),
});

/** The process body; the card fields are top level (docs/platform-contract.md, "Endpoints" and "Decisions where the spec is silent"). */
const process = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  clientNewTransactionId: clientId,
  authorizationAmount: amountSchema,
  instrument,
  offlineTransaction: z.boolean({ error: 'offlineTransaction must be a boolean' }).optional(),
  entryMode: text('entryMode').optional(),
  orderChannel: text('orderChannel').optional(),
  zipCode: text('zipCode').optional(),
  houseNumber: text('houseNumber').optional(),
  ksn: z
    .string()
    .regex(/^[0-9A-Fa-f]{10,24}$/, 'ksn must be hexadecimal')
    .optional(),
  pinblock: z
    .string()
    .regex(/^[0-9A-Fa-f]{16}$|^[0-9A-Fa-f]{32}$/, 'pinblock must be 16 or 32 hexadecimal digits')
    .optional(),
  pinblockFormat: text('pinblockFormat').optional(),
});

/** Capture body `{clientDateTime, channel, captureAmount}` (docs/platform-contract.md, "Decisions where the spec is silent"). */
const capture = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  captureAmount: amountSchema,
});

/** Captureall body `{clientDateTime, channel}` (docs/platform-contract.md, "Decisions where the spec is silent"). */
const captureAll = z.object({ clientDateTime: clientDateTimeSchema, channel: text('channel') });

const operationInstrument = z.object({
  instrumentType: z.enum(['card', 'walletA', 'walletB'], { error: 'instrumentType must be card, walletA or walletB' }),
});

/**
 * The cancel body: clientDateTime, channel, cancelReason, cancelAmount, instrument
 * {instrumentType}, and `approvalCode` top level (docs/platform-contract.md, "Endpoints"
 * and "Decisions where the spec is silent"). The contract gives it no client id; the
 * standard profile still reads one an old client sends.
 */
const cancel = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  cancelReason: z.enum(['Technical', 'Functional'], { error: 'cancelReason must be Technical or Functional' }),
  cancelAmount: amountSchema,
  instrument: operationInstrument,
  approvalCode: z.string({ error: 'approvalCode must be a string' }).optional(),
  clientNewTransactionId: clientId.optional(),
});

/** The refund body; `approvalCode` top level (docs/platform-contract.md, "Endpoints" and "Decisions where the spec is silent"). */
const refund = z.object({
  clientDateTime: clientDateTimeSchema,
  channel: text('channel'),
  clientNewTransactionId: clientId,
  refundAmount: amountSchema,
  instrument: operationInstrument,
  approvalCode: z.string({ error: 'approvalCode must be a string' }).optional(),
});

/** Refundbyweb body `{clientDateTime, clientNewTransactionId, amount}` (docs/platform-contract.md, "Endpoints"). */
const refundByWeb = z.object({
  clientDateTime: clientDateTimeSchema,
  clientNewTransactionId: clientId,
  amount: amountSchema,
});

/** The terminal QR call's body (docs/platform-contract.md, "Endpoints"). */
const qrCode = z.object({
  paymentType: z.enum(['walletA', 'walletB'], { error: 'paymentType must be walletA or walletB' }),
  paymentScenario: z.literal('MerchantScan', {
    error: 'paymentScenario must be MerchantScan (the terminal scanned the consumer code)',
  }),
  scannedPaymentId: text('scannedPaymentId'),
  clientTransactionId: text('clientTransactionId').max(64, 'clientTransactionId is longer than 64 characters'),
  paymentAmount: amountSchema,
  order: z.object({
    orderId: text('orderId'),
    orderDescription: z.string({ error: 'orderDescription must be a string' }),
  }),
});

const standardBodies = { process, capture, captureAll, cancel, refund, refundByWeb, qrCode };
export type BodySchemas = typeof standardBodies;
export type BodyOf<K extends keyof BodySchemas> = z.infer<BodySchemas[K]>;

/** The same schema with every object, at any depth, refusing a field it does not name. */
function refuseUnknownFields(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, refuseUnknownFields(v)]),
    );
    return z.strictObject(shape);
  }
  if (schema instanceof z.ZodOptional) return refuseUnknownFields(schema.unwrap() as z.ZodType).optional();
  return schema;
}

/**
 * The strict profile's bodies (docs/demo-platform.md, "Demo platform"): only the fields the
 * contract names plus the placements docs/platform-contract.md, "Decisions where the spec
 * is silent" records; any other field, at any depth, is a 400 naming it. So no
 * `paymentScenario: "Moto"` and no cancel `clientNewTransactionId`.
 */
const strictBodies = {
  ...(Object.fromEntries(Object.entries(standardBodies).map(([k, v]) => [k, refuseUnknownFields(v)])) as Record<
    keyof BodySchemas,
    z.ZodType
  >),
  process: refuseUnknownFields(
    process.extend({ instrument: instrument.extend({ paymentScenario: contractScenario.optional() }) }),
  ),
  cancel: refuseUnknownFields(cancel.omit({ clientNewTransactionId: true })),
};

/**
 * The body schemas of the profile in force. The standard ones tolerate what the contract
 * does not name (unknown fields are dropped; the old MOTO marker and cancel id are read);
 * what the strict ones accept is a subset of the same types.
 */
export function bodySchemasFor(profile: { strict: boolean }): BodySchemas {
  return profile.strict ? (strictBodies as unknown as BodySchemas) : standardBodies;
}

export type ProcessBody = z.infer<BodySchemas['process']>;
export type Instrument = ProcessBody['instrument'];
export type CaptureBody = z.infer<BodySchemas['capture']>;
export type CancelBody = z.infer<BodySchemas['cancel']>;
export type RefundBody = z.infer<BodySchemas['refund']>;
export type RefundByWebBody = z.infer<BodySchemas['refundByWeb']>;
export type QrCodeBody = z.infer<BodySchemas['qrCode']>;

/** `?operation=` on allowed operations: not in the contract; the standard profile still answers it. */
export const operationQuerySchema = z.enum(['cancel', 'refund', 'capture'], {
  error: 'operation must be cancel, refund or capture',
});
export type OperationName = z.infer<typeof operationQuerySchema>;
