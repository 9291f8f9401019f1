import { z } from 'zod';
import { amountResponse, anyObject } from './common.js';

/**
 * Answers of the payment API (docs/platform-contract.md, "Tolerance of answers"), read leniently: unknown
 * fields are kept, absent optional fields tolerated, a wrong type names the field.
 */

export const instrumentResponse = z.looseObject({
  instrumentType: z.string().optional(),
  paymentScenario: z.string().optional(),
  walletId: z.string().optional(),
});

export const sourceResponse = z.looseObject({
  sourceType: z.string().optional(),
  storeId: z.string().optional(),
  logicalDeviceId: z.string().optional(),
  physicalDeviceId: z.string().optional(),
  acquirerName: z.string().optional(),
});

/** One entry of a transaction's history (kept as sent: docs/platform-contract.md, "Tolerance of answers"). */
export const transactionEvent = z.looseObject({
  eventType: z.string().optional(),
  serverProcessingDateTime: z.string().optional(),
  clientDateTime: z.string().optional(),
  authorizationAmount: amountResponse.optional(),
  cancelAmount: amountResponse.optional(),
  refundAmount: amountResponse.optional(),
  instrument: instrumentResponse.optional(),
  source: sourceResponse.optional(),
  requestor: anyObject.optional(),
  result: z.string().optional(),
  resultMessage: z.string().optional(),
  /** Shape depends on the wallet and scenario (QR data, merchant-scan data, refund data). */
  resultData: anyObject.optional(),
  cancelReason: z.string().optional(),
  paymentRequestId: z.string().optional(),
  refundId: z.string().optional(),
  refundTime: z.string().optional(),
  WalletId: z.string().optional(),
});
export type TransactionEvent = z.infer<typeof transactionEvent>;

/** Payment transaction record (process, cancel, refund, capture, status). */
export const transactionRecord = z.looseObject({
  transactionType: z.string().optional(),
  serverTransactionId: z.string(),
  clientTransactionId: z.string().optional(),
  relatedServerTransactionId: z.string().optional(),
  /** Initialized, Accepted, Refused, Captured, cancelled, Failed, Expired, … (kept as sent). */
  transactionStatus: z.string(),
  tenantId: z.string().optional(),
  merchantAggregatorId: z.string().optional(),
  merchantId: z.string().optional(),
  events: z.array(transactionEvent).default([]),
});
export type TransactionRecord = z.infer<typeof transactionRecord>;

/** Captureall answers `{transactions: [records]}` (docs/platform-contract.md, "Decisions where the spec is silent"). */
export const captureAllResponse = z.looseObject({ transactions: z.array(transactionRecord) });
export type CaptureAllResponse = z.infer<typeof captureAllResponse>;

/** Allowed-operations record (docs/platform-contract.md, "Decisions where the spec is silent"). */
const allowedOperation = z.looseObject({
  allowed: z.boolean(),
  maxAmount: z.number().optional(),
  currency: z.string().optional(),
});
export const allowedOperations = allowedOperation.extend({
  /** The operation the record is about, when the platform says (cancel while possible, else refund). */
  operation: z.string().optional(),
  /** Every operation's record, when the platform lists them. */
  operations: z.record(z.string(), allowedOperation).optional(),
});
export type AllowedOperations = z.infer<typeof allowedOperations>;

/** Country record (docs/platform-contract.md, "Endpoints"). */
export const country = z.looseObject({ code: z.string(), display: z.string() });
export type Country = z.infer<typeof country>;
export const countries = z.array(country);

/** The terminal QR call's answer is not specified; whatever object comes back is kept (docs/platform-contract.md, "Tolerance of answers"). */
export const qrTerminalPaymentResponse = z.looseObject({});
export type QrTerminalPaymentResponse = z.infer<typeof qrTerminalPaymentResponse>;
