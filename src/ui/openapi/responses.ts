import { z } from 'zod';
import { OPERATION_REASON_CODES, REFUSAL_REASON_CODES } from '../../payments/index.js';
import type {
  ApiAgentStatus,
  ApiAllowedOperationsAnswer,
  ApiDevicesAnswer,
  ApiErrorAnswer,
  ApiHealthAnswer,
  ApiLogLevelAnswer,
  ApiMerchantsAnswer,
  ApiOfflineAnswer,
  ApiOfflineFlushAnswer,
  ApiOfflineItemAnswer,
  ApiPairingAnswer,
  ApiPairingOfferAnswer,
  ApiReadiness,
  ApiRegisterAnswer,
  ApiRegistersAnswer,
  ApiSessionAnswer,
  ApiTransactionAnswer,
  ApiTransactionListAnswer,
  ApiEndOfDay,
  ApiEndOfDayAnswer,
  ApiReceipt,
  ApiReceiptAnswer,
} from '../shared/index.js';

/**
 * The local API's answers as zod schemas, for the OpenAPI document (docs/local-api.md,
 * "The document"). Strict objects: a field an answer carries but the document does not name
 * fails the contract test. Each schema is checked at compile time against its wire type
 * (wire-types.ts, what the CLI and the page read) at the end of this file.
 */

const minor = z.number().int().describe('integer minor units of the currency');
const isoTime = z.string().describe('ISO 8601 date and time');
const currency = z.string().describe('ISO 4217 code');

const operationKind = z.enum(['sale', 'capture', 'cancel', 'refund']);
const saleMethod = z.enum(['card', 'manual', 'moto', 'walletA', 'walletB']);
const walletScenario = z.enum(['ConsumerScan', 'MerchantScan']);

const transactionState = z.enum([
  'created',
  'awaiting_customer',
  'in_flight',
  'pending',
  'approved',
  'declined',
  'failed',
  'cancelled',
  'reversing',
  'reversed',
  'offline_stored',
  'needs_attention',
]);

export const transactionSchema = z.strictObject({
  clientTransactionId: z.string(),
  serverTransactionId: z.string().optional(),
  kind: operationKind,
  method: saleMethod.optional(),
  scenario: walletScenario.optional(),
  merchantId: z.string().optional(),
  amount: minor,
  currency,
  amountText: z.string(),
  state: transactionState,
  platformStatus: z.string().optional(),
  relatedClientTransactionId: z.string().optional(),
  maskedPan: z.string().optional(),
  scheme: z.string().optional(),
  entryMode: z.string().optional(),
  offline: z.boolean(),
  origin: z.literal('web').optional(),
  message: z.string().optional(),
  operator: z.string().optional(),
  requestId: z.string().optional().describe('the X-Request-Id of the request that made the row'),
  qr: z.strictObject({ codeValue: z.string(), expireTime: z.string().optional() }).optional(),
  capturedAmount: minor,
  refundedAmount: minor,
  cancelledAmount: minor,
  capturedAmountText: z.string(),
  refundedAmountText: z.string(),
  cancelledAmountText: z.string(),
  createdAt: isoTime,
  updatedAt: isoTime,
  events: z.array(z.record(z.string(), z.unknown())).optional(),
  eventCount: z.number().int(),
  reference: z.string().optional(),
  attempts: z
    .number()
    .int()
    .optional()
    .describe("an operation's row: how many times it was sent to the platform (a reversal counts its retries)"),
  outcomeBeingChecked: z
    .literal(true)
    .optional()
    .describe(
      'a sale whose outcome is unknown and being asked of the platform (its answer lost, a terminal QR call not answered, a QR expired): do not repeat it, do not hand over the goods yet; absent otherwise',
    ),
});

const operationSchema = z.strictObject({
  allowed: z.boolean(),
  maxAmount: minor,
  maxAmountText: z.string(),
  reason: z.string().optional().describe('why not, in English, for people'),
  reasonCode: z
    .enum(OPERATION_REASON_CODES)
    .optional()
    .describe('why not, as a stable code; see docs/local-api.md, "Allowed operations"'),
});

const offlineLevelsSchema = z.strictObject({
  enabled: z.boolean(),
  count: z.number().int(),
  maxCount: z.number().int(),
  totals: z.record(z.string(), z.number()),
  maxTotal: z.record(z.string(), z.number()),
  floorLimits: z.record(z.string(), z.number()).optional(),
  oldestCreatedAt: isoTime.optional(),
  needsAttention: z.number().int().optional(),
  states: z
    .strictObject({
      queued: z.number().int(),
      uploading: z.number().int(),
      uploaded: z.number().int(),
      declined_after_upload: z.number().int(),
      needs_attention: z.number().int(),
    })
    .describe('items per queue state in the whole queue, not only the page answered'),
  uploading: z.boolean().optional(),
  lastError: z.string().optional(),
  totalsText: z.record(z.string(), z.string()),
  maxTotalText: z.record(z.string(), z.string()),
  floorLimitsText: z.record(z.string(), z.string()),
});

const offlineItemSchema = z.strictObject({
  clientTransactionId: z.string(),
  amount: minor,
  currency,
  amountText: z.string(),
  maskedPan: z.string().optional(),
  state: z.enum(['queued', 'uploading', 'uploaded', 'declined_after_upload', 'needs_attention']),
  attempts: z.number().int(),
  lastMessage: z.string().optional(),
  storedAt: isoTime,
  serverTransactionId: z.string().optional(),
  merchantId: z.string().optional(),
});

const check = z.strictObject({ ok: z.boolean(), detail: z.string() });
const checksSchema = z.strictObject({
  token: check,
  platform: check,
  reader: check,
  journal: check.optional(),
  disk: check.optional(),
});

const deviceSchema = z.strictObject({
  device: z.enum(['reader', 'display', 'scanner']),
  state: z.enum(['connected', 'disconnected', 'reconnecting', 'disabled', 'unknown']),
  reason: z.string().optional(),
  model: z.string().optional(),
  firmware: z.string().optional(),
});

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export const errorAnswerSchema = z.strictObject({
  error: z.strictObject({
    code: z.string().describe('stable; see docs/local-api.md, "Errors"'),
    message: z.string().describe('for the person at the counter'),
    reasonCode: z
      .enum(REFUSAL_REASON_CODES)
      .optional()
      .describe(
        'a cancel, refund or capture refused: why, as in the allowed-operations answer, or an approval code missing or wrong, or an amount above what is left; see docs/local-api.md, "Allowed operations"',
      ),
    permission: z
      .string()
      .optional()
      .describe(
        'API_FORBIDDEN for a signed-in clerk: the staff permission needed (api.permissions); see docs/local-api.md, "Errors"',
      ),
  }),
});

export const healthAnswerSchema = z.strictObject({ status: z.literal('ok') });
export const readinessSchema = z.strictObject({ ready: z.boolean(), checks: checksSchema });
export const transactionAnswerSchema = z.strictObject({ transaction: transactionSchema });
export const transactionListAnswerSchema = z.strictObject({
  transactions: z.array(transactionSchema),
  next: z.string().optional().describe('more rows follow: ask again with `after` set to this id'),
});
export const allowedOperationsAnswerSchema = z.strictObject({
  allowedOperations: z.strictObject({
    cancel: operationSchema,
    refund: operationSchema,
    capture: operationSchema,
    currency,
    fromPlatform: z.boolean(),
  }),
});
export const offlineAnswerSchema = z.strictObject({
  offline: offlineLevelsSchema.nullable(),
  items: z.array(offlineItemSchema),
  next: z.string().optional().describe('more items follow: ask again with `after` set to this id'),
});
export const offlineFlushAnswerSchema = z.strictObject({
  result: z.strictObject({
    platform: z.enum(['online', 'offline']).optional(),
    attempted: z.number().int().optional(),
    uploaded: z.number().int(),
    declinedAfterUpload: z.number().int().optional(),
    rejected: z.number().int().optional(),
    needsAttention: z.number().int().optional(),
    deferred: z.number().int().optional(),
    failed: z.number().int(),
    remaining: z.number().int(),
    items: z
      .array(
        z.strictObject({
          clientTransactionId: z.string(),
          result: z.enum(['uploaded', 'declined_after_upload', 'rejected', 'needs_attention', 'deferred']),
          state: z.enum(['queued', 'uploading', 'uploaded', 'declined_after_upload', 'needs_attention']),
          message: z.string().optional(),
        }),
      )
      .optional(),
  }),
});
export const offlineItemAnswerSchema = z.strictObject({ item: offlineItemSchema });
export const merchantsAnswerSchema = z.strictObject({
  merchants: z.array(
    z.strictObject({
      merchantName: z.string(),
      clientId: z.string(),
      merchantId: z.string().optional(),
      default: z.boolean(),
    }),
  ),
});
export const devicesAnswerSchema = z.strictObject({ devices: z.array(deviceSchema) });
export const platformStatusSchema = z.strictObject({
  online: z.boolean(),
  state: z.enum(['online', 'offline', 'unknown']),
  reason: z.string().optional(),
  since: isoTime.optional(),
});
export const agentStatusSchema = z.strictObject({
  agent: z.strictObject({
    version: z.string(),
    run: z.string(),
    startedAt: isoTime,
    uptimeSeconds: z.number(),
    environment: z.string(),
    defaultCurrency: currency,
    merchantId: z.string().nullable(),
    captureMode: z.string(),
  }),
  ready: z.boolean(),
  checks: checksSchema,
  platform: platformStatusSchema,
  devices: z.array(deviceSchema),
  offline: offlineLevelsSchema.nullable(),
});
export const logLevelAnswerSchema = z.strictObject({ level: logLevel, previous: logLevel.optional() });
export const sessionAnswerSchema = z.strictObject({
  signedIn: z.boolean(),
  counter: z.strictObject({
    locale: z.string(),
    timeZone: z.string().optional(),
    dateTimeFormat: z
      .string()
      .optional()
      .describe(
        'the clerk\'s datetimeformat claim, e.g. "YYYY-MM-DDTHH:mm:ssZ" (tokens YYYY MM DD HH mm ss Z, in timeZone); absent: per locale',
      ),
    defaultCurrency: currency,
    currencies: z.array(z.strictObject({ code: currency, digits: z.number().int() })),
    outcomeSeconds: z
      .number()
      .int()
      .min(0)
      .describe(
        'how long the page shows a final outcome the clerk need not act on before the new-sale form comes back clean; 0: until "New sale"',
      ),
  }),
  platformSignIn: z.boolean().optional(),
  staff: z
    .strictObject({
      username: z.string(),
      name: z.string(),
      offline: z.boolean(),
      can: z.strictObject({
        cancel: z.boolean(),
        refund: z.boolean(),
        captureAll: z.boolean(),
        registers: z.boolean(),
        refundByWeb: z.boolean().describe('by web for a sale made at this terminal too (api.permissions.refundByWeb)'),
        logLevel: z.boolean().describe('change the log level (api.permissions.logLevel)'),
      }),
    })
    .optional(),
});

// Receipts and the end of day (docs/receipts.md; report-wire-types.ts).
const receiptAmount = z.strictObject({
  minor,
  currency,
  minorDigits: z.number().int(),
  text: z.string().describe('major units without the currency, "12.34"'),
});
export const receiptSchema = z.strictObject({
  copy: z.enum(['customer', 'merchant']),
  kind: operationKind,
  locale: z
    .string()
    .describe("the locale the words are in: receipts.locale, else the clerk's locale claim, else api.locale"),
  title: z.string(),
  merchant: z.strictObject({ name: z.string(), id: z.string().nullable() }),
  terminalId: z.string().nullable(),
  operator: z.string().nullable(),
  dateTime: z.strictObject({
    local: z.string(),
    date: z.string(),
    time: z.string(),
    offset: z.string(),
    timeZone: z.string(),
    utc: isoTime,
    dateText: z.string().describe('the date as printed, in the locale: 28.11.2026'),
    timeText: z.string().describe('24 h time as printed: 18:18:05'),
    zoneName: z.string().describe("the zone's short name in the locale, as printed: MEZ, CET, UTC"),
  }),
  amount: receiptAmount,
  method: saleMethod.nullable(),
  methodText: z.string().nullable(),
  scenario: walletScenario.nullable(),
  card: z
    .strictObject({
      scheme: z.string().nullable(),
      last4: z.string().nullable(),
      masked: z.string().nullable().describe('never more than the last four digits'),
      entryMode: z.string().nullable(),
      entryModeText: z.string().nullable(),
    })
    .nullable(),
  serverTransactionId: z.string().nullable(),
  clientTransactionId: z.string(),
  originalSale: z
    .strictObject({
      serverTransactionId: z.string().nullable(),
      clientTransactionId: z.string(),
      amount: receiptAmount,
    })
    .nullable(),
  offline: z.boolean(),
  outcome: z.strictObject({
    state: transactionState,
    code: z.enum([
      'approved',
      'approved_offline',
      'declined',
      'not_completed',
      'cancelled',
      'reversed',
      'check_needed',
    ]),
    text: z.string(),
    detail: z.string().nullable(),
  }),
  merchantNotes: z.strictObject({ message: z.string().nullable(), platformStatus: z.string().nullable() }).nullable(),
  footer: z.string(),
});
export const receiptAnswerSchema = z.strictObject({ receipt: receiptSchema });

const figure = z.strictObject({ count: z.number().int(), amount: minor });
const endOfDayLineShape = {
  currency,
  minorDigits: z.number().int(),
  sales: figure,
  refunds: figure,
  cancels: figure,
  captures: figure,
  offlinePending: figure,
  needsAttention: figure,
  inProgress: figure,
  notCompleted: figure,
  net: minor.describe('sales - refunds - cancels, integer minor units'),
};
const merchantKey = { merchantId: z.string().nullable(), merchantName: z.string().nullable() };
export const endOfDaySchema = z.strictObject({
  date: z.string().describe('the local day, YYYY-MM-DD'),
  timeZone: z.string(),
  locale: z.string().describe('the locale the printer text is written in'),
  from: isoTime,
  to: isoTime,
  fromLocal: z.string(),
  toLocal: z.string(),
  generatedAt: isoTime,
  generatedAtLocal: z.string(),
  terminalId: z.string().nullable(),
  rows: z.number().int(),
  totals: z.array(z.strictObject(endOfDayLineShape)),
  byMerchant: z.array(z.strictObject({ ...endOfDayLineShape, ...merchantKey })),
  byMethod: z.array(z.strictObject({ ...endOfDayLineShape, method: saleMethod.nullable() })),
  byOperator: z.array(z.strictObject({ ...endOfDayLineShape, operator: z.string().nullable() })),
  groups: z.array(
    z.strictObject({
      ...endOfDayLineShape,
      ...merchantKey,
      method: saleMethod.nullable(),
      operator: z.string().nullable(),
    }),
  ),
});
export const endOfDayAnswerSchema = z.strictObject({ endOfDay: endOfDaySchema });

// Cash registers on the store network (docs/registers.md).
export const registerSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  pairedAt: isoTime,
  pairedBy: z.string().describe("who started the pairing: a clerk's username or cli"),
  revokedAt: isoTime.optional(),
  lastSeenAt: isoTime.optional().describe('its last request since the agent started'),
});
export const registersAnswerSchema = z.strictObject({
  lan: z.strictObject({ enabled: z.boolean(), url: z.string().optional(), fingerprint: z.string().optional() }),
  pairing: z.strictObject({ expiresAt: isoTime }).optional().describe('a pairing code is on offer until then'),
  registers: z.array(registerSchema),
});
export const pairingOfferAnswerSchema = z.strictObject({
  pairing: z.strictObject({
    code: z.string().describe('the one-time code to enter on the register'),
    expiresAt: isoTime,
    fingerprint: z.string().describe("SHA-256 of the store-network listener's certificate, for the register to pin"),
    url: z.string(),
  }),
});
export const registerAnswerSchema = z.strictObject({ register: registerSchema });
export const pairingAnswerSchema = z.strictObject({
  register: registerSchema,
  apiKey: z
    .string()
    .describe("the register's key, shown this once: send it as Authorization: Bearer on the store-network listener"),
  fingerprint: z.string(),
});

/** The OpenAPI document itself: described as an object only (its own standard describes it). */
export const openApiAnswerSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({}),
  paths: z.looseObject({}),
});

type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type Expect<T extends true> = T;
/** Each answer's schema describes exactly its wire type: a field added on one side only fails to compile. */
export type ResponseSchemasMatchTheWire = [
  Expect<Same<z.infer<typeof errorAnswerSchema>, ApiErrorAnswer>>,
  Expect<Same<z.infer<typeof healthAnswerSchema>, ApiHealthAnswer>>,
  Expect<Same<z.infer<typeof readinessSchema>, ApiReadiness>>,
  Expect<Same<z.infer<typeof transactionAnswerSchema>, ApiTransactionAnswer>>,
  Expect<Same<z.infer<typeof transactionSchema>, ApiTransactionAnswer['transaction']>>,
  Expect<Same<z.infer<typeof transactionListAnswerSchema>, ApiTransactionListAnswer>>,
  Expect<Same<z.infer<typeof allowedOperationsAnswerSchema>, ApiAllowedOperationsAnswer>>,
  Expect<Same<z.infer<typeof offlineAnswerSchema>, ApiOfflineAnswer>>,
  Expect<Same<z.infer<typeof offlineFlushAnswerSchema>, ApiOfflineFlushAnswer>>,
  Expect<Same<z.infer<typeof offlineItemAnswerSchema>, ApiOfflineItemAnswer>>,
  Expect<Same<z.infer<typeof merchantsAnswerSchema>, ApiMerchantsAnswer>>,
  Expect<Same<z.infer<typeof devicesAnswerSchema>, ApiDevicesAnswer>>,
  Expect<Same<z.infer<typeof agentStatusSchema>, ApiAgentStatus>>,
  Expect<Same<z.infer<typeof logLevelAnswerSchema>, ApiLogLevelAnswer>>,
  Expect<Same<z.infer<typeof sessionAnswerSchema>, ApiSessionAnswer>>,
  Expect<Same<z.infer<typeof receiptSchema>, ApiReceipt>>,
  Expect<Same<z.infer<typeof receiptAnswerSchema>, ApiReceiptAnswer>>,
  Expect<Same<z.infer<typeof endOfDaySchema>, ApiEndOfDay>>,
  Expect<Same<z.infer<typeof endOfDayAnswerSchema>, ApiEndOfDayAnswer>>,
  Expect<Same<z.infer<typeof registerSchema>, ApiRegisterAnswer['register']>>,
  Expect<Same<z.infer<typeof registersAnswerSchema>, ApiRegistersAnswer>>,
  Expect<Same<z.infer<typeof pairingOfferAnswerSchema>, ApiPairingOfferAnswer>>,
  Expect<Same<z.infer<typeof registerAnswerSchema>, ApiRegisterAnswer>>,
  Expect<Same<z.infer<typeof pairingAnswerSchema>, ApiPairingAnswer>>,
];
