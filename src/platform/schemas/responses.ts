import { z } from 'zod';
import { anyObject } from './common.js';

/**
 * Answers of the payment API (docs/platform-contract.md, "Tolerance of answers"). Only an
 * answer's essentials are required: for a write its outcome (`transactionStatus`) and the
 * server's id (`serverTransactionId`), for the status call the status, for allowed
 * operations `allowed`. Every other field may be absent, null, of a type we do not expect
 * or unknown: it is kept as sent (the payments layer reads what it uses defensively, see
 * src/payments/records.ts) and never makes an answer unreadable.
 */

/** A non-empty string: the form of every essential text field. */
const essentialText = z.string({ error: 'expected a string' }).trim().min(1, 'must not be empty');

/**
 * A transaction's history: an array of event objects, each kept as sent (null fields,
 * unknown fields and unknown event types included). Absent, null or not an array reads as
 * no events; an element that is not an object is dropped.
 */
const eventList = z.preprocess(
  (v): unknown[] =>
    Array.isArray(v) ? (v as unknown[]).filter((e) => typeof e === 'object' && e !== null && !Array.isArray(e)) : [],
  z.array(anyObject),
);

/** One entry of a transaction's history, as sent (eventType, serverProcessingDateTime, result, resultData, … when present). */
export type TransactionEvent = Record<string, unknown>;

/**
 * The fields the spec lists for a transaction record, none of them required by the status
 * call except the status: transactionType, serverTransactionId, clientTransactionId,
 * relatedServerTransactionId, tenantId, merchantAggregatorId, merchantId (strings when
 * present) and events.
 */
export interface TransactionRecord {
  transactionStatus: string;
  serverTransactionId?: string;
  transactionType?: unknown;
  clientTransactionId?: unknown;
  relatedServerTransactionId?: unknown;
  events: TransactionEvent[];
  [field: string]: unknown;
}

/** A record that answers a write: the server's id is essential too. */
export interface WriteRecord extends TransactionRecord {
  serverTransactionId: string;
}

/** The status call's record: only the status is essential; a server id that is not a usable string reads as absent. */
export const transactionRecord = z
  .looseObject({
    transactionStatus: essentialText,
    serverTransactionId: z.unknown().optional(),
    events: eventList,
  })
  .transform((r): TransactionRecord => {
    const { serverTransactionId, ...rest } = r;
    return typeof serverTransactionId === 'string' && serverTransactionId.trim() !== ''
      ? { ...rest, serverTransactionId }
      : rest;
  });

/** The record answering a write (process, capture, cancel, refund, refund by web): status and server id. */
export const writeRecord = z
  .looseObject({
    transactionStatus: essentialText,
    serverTransactionId: essentialText,
    events: eventList,
  })
  .transform((r): WriteRecord => r);

/** Captureall answers `{transactions: [records]}` (docs/platform-contract.md, "Decisions where the spec is silent"); each record as a write's. */
export const captureAllResponse = z.looseObject({ transactions: z.array(writeRecord) });
export type CaptureAllResponse = z.infer<typeof captureAllResponse>;

/**
 * An amount in minor units where the spec promises an integer (allowed operations'
 * `maxAmount`): a non-negative integer, or a string of digits; anything else (null, a
 * fraction, text) reads as absent.
 */
const tolerantMinor = z
  .unknown()
  .transform((v): number | undefined => {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
    if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v)) return Number(v);
    return undefined;
  })
  .optional();

/** A text field that reads as absent unless it is a string. */
const tolerantText = z
  .unknown()
  .transform((v): string | undefined => (typeof v === 'string' ? v : undefined))
  .optional();

/** Allowed-operations record (docs/platform-contract.md, "Decisions where the spec is silent"): `allowed` is essential. */
const allowedOperation = z.looseObject({
  allowed: z.boolean({ error: 'expected a boolean' }),
  maxAmount: tolerantMinor,
  currency: tolerantText,
});

/** One operation's entry under `operations`; an entry without a readable `allowed` reads as absent. */
const allowedOperationEntry = z.unknown().transform((v) => {
  const parsed = allowedOperation.safeParse(v);
  return parsed.success ? parsed.data : undefined;
});

export const allowedOperations = allowedOperation.extend({
  /** The operation the record is about, when the platform says (cancel while possible, else refund). */
  operation: tolerantText,
  /** Every operation's record, when the platform lists them; absent, null or not an object reads as absent. */
  operations: z
    .unknown()
    .transform((v): Record<string, z.output<typeof allowedOperation>> | undefined => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
      const out: Record<string, z.output<typeof allowedOperation>> = {};
      for (const [name, entry] of Object.entries(v)) {
        const read = allowedOperationEntry.parse(entry);
        if (read !== undefined) out[name] = read;
      }
      return out;
    })
    .optional(),
});
export type AllowedOperations = z.infer<typeof allowedOperations>;

/** Country record (docs/platform-contract.md, "Endpoints"). */
export const country = z.looseObject({ code: z.string(), display: z.string() });
export type Country = z.infer<typeof country>;
export const countries = z.array(country);

/** The terminal QR call's answer is not specified; whatever object comes back is kept (docs/platform-contract.md, "Tolerance of answers"). */
export const qrTerminalPaymentResponse = z.looseObject({});
export type QrTerminalPaymentResponse = z.infer<typeof qrTerminalPaymentResponse>;
