import { z } from 'zod';
import { AgentError, ErrorCodes, LOG_LEVELS } from '../../core/index.js';
import { SALE_REFERENCE_MAX_LENGTH } from '../../payments/index.js';
import type {
  ApiCancelRequest,
  ApiCaptureAllRequest,
  ApiCaptureRequest,
  ApiLogLevelRequest,
  ApiRefundRequest,
  ApiSaleRequest,
} from './wire-types.js';

/** Local API request shapes (zod, unknown fields refused). Amounts travel as text in major units. */

const amountText = z
  .string({ error: 'must be text in major units such as "12.34"' })
  .trim()
  .min(1, 'must not be empty')
  .max(32, 'is too long');
// One message for a value of another type or another form (zod uses the schema's for both).
const currencyText = z.string({ error: 'must be a currency code such as EUR' }).regex(/^[A-Za-z]{3}$/);
const shortText = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const transactionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,80}$/, 'must be a transaction id (letters, digits, . _ : -)');

/**
 * The caller's reference (docs/local-api.md, "Caller reference"): the engine's rule
 * (saleReferenceProblem, which the engine applies again) stated as a pattern and length the
 * OpenAPI document can show: 1 to 64 characters after trimming, no control characters.
 */
export const referenceSchema = z
  .string({ error: 'must be text' })
  .trim()
  .min(1, 'must not be empty')
  .max(SALE_REFERENCE_MAX_LENGTH, `must be at most ${SALE_REFERENCE_MAX_LENGTH} characters`)
  .regex(/^[^\p{C}]+$/u, 'must be printable text (no control characters)')
  .describe('your own reference of the sale (a receipt or order number): 1 to 64 printable characters');

export const saleBodySchema = z.strictObject({
  method: z.enum(['card', 'manual', 'moto', 'walletA', 'walletB']),
  scenario: z.enum(['ConsumerScan', 'MerchantScan']).optional(),
  amount: amountText,
  currency: currencyText.optional(),
  merchantId: shortText(64).optional(),
  moto: z
    .strictObject({
      orderChannel: shortText(32).optional(),
      zipCode: shortText(16).optional(),
      houseNumber: shortText(16).optional(),
      email: z.email('must be an e-mail address').max(254).optional(),
      phone: z
        .string()
        .regex(/^\+?[0-9 ()-]{4,24}$/, 'must be a phone number')
        .optional(),
    })
    .optional(),
  walletId: shortText(128).optional(),
  /** Wallet merchant scan through the terminal QR call instead of process. */
  via: z.enum(['process', 'qrTerminal']).optional(),
  /** Terminal QR call only: its `order` (docs/platform-contract.md, "Endpoints"). */
  order: z
    .strictObject({
      orderId: shortText(64),
      orderDescription: z.string().max(256, 'must be at most 256 characters').optional(),
    })
    .optional(),
  reference: referenceSchema.optional(),
});
export type SaleBody = z.infer<typeof saleBodySchema>;

export const cancelBodySchema = z.strictObject({
  amount: amountText.optional(),
  reason: z.enum(['Technical', 'Functional']).optional(),
  approvalCode: shortText(32).optional(),
});

export const refundBodySchema = z.strictObject({
  amount: amountText.optional(),
  approvalCode: shortText(32).optional(),
});

/** Cancel or refund by web: the amount only (no approval code applies to by-web operations). */
export const refundByWebBodySchema = z.strictObject({
  amount: amountText.optional(),
  merchantId: shortText(64).optional(),
});

export const captureBodySchema = z.strictObject({
  amount: amountText.optional(),
});

export const captureAllBodySchema = z.strictObject({
  merchantId: shortText(64).optional(),
});

export const emptyBodySchema = z.strictObject({});

/**
 * Compile-time check that each schema parses exactly the request type declared in
 * wire-types.ts (what the CLI and the page send): a field added on one side only fails here.
 */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type Expect<T extends true> = T;
export type RequestSchemasMatchTheWire = [
  Expect<Same<SaleBody, ApiSaleRequest>>,
  Expect<Same<z.infer<typeof cancelBodySchema>, ApiCancelRequest>>,
  Expect<Same<z.infer<typeof refundBodySchema>, ApiRefundRequest>>,
  Expect<Same<z.infer<typeof captureBodySchema>, ApiCaptureRequest>>,
  Expect<Same<z.infer<typeof captureAllBodySchema>, ApiCaptureAllRequest>>,
];

/** A page's size (docs/local-api.md, "Paging"): 1 to 1000, digits only. */
export const pageLimitSchema = z
  .string()
  // Digits only: Number() alone would also read "1e3", "12e1" or "0x10" as numbers in range.
  .regex(/^\d{1,4}$/, 'must be a whole number from 1 to 1000')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 1000, 'must be a whole number from 1 to 1000');

/** The rows a page answers when the caller names no `limit`. */
export const DEFAULT_PAGE_LIMIT = 100;

export const listQuerySchema = z.strictObject({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2025-03-01')
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'is not a calendar date')
    .optional(),
  limit: pageLimitSchema.optional(),
  reference: referenceSchema.optional(),
  after: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe("the last transaction id of the page before: the next page (the answer's `next`)"),
});

export const getQuerySchema = z.strictObject({
  refresh: z.enum(['0', '1', 'true', 'false']).optional(),
  merchantId: shortText(64).optional(),
});

export const noQuerySchema = z.strictObject({});

function allowedKeys(schema: z.ZodType): string[] | undefined {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : undefined;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) {
    // Stryker disable next-line all: zod names the path of the value it found wrong, so every step before it is an object
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function describeIssue(issue: z.core.$ZodIssue, where: string, schema: z.ZodType, input: unknown): string {
  const field = issue.path.map(String).join('.');
  switch (issue.code) {
    case 'unrecognized_keys': {
      const names = issue.keys.map((k) => `"${k.slice(0, 40)}"`).join(', ');
      const allowed = issue.path.length === 0 ? allowedKeys(schema) : undefined;
      const hint =
        allowed === undefined
          ? ''
          : allowed.length === 0
            ? '; nothing is expected here'
            : `; allowed: ${allowed.join(', ')}`;
      return `unknown ${issue.keys.length === 1 ? 'field' : 'fields'} ${names} in the ${where}${field ? ` at ${field}` : ''}${hint}`;
    }
    case 'invalid_value':
      return `${field}: must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_type':
      if (field === '') return `the ${where} must be a JSON object`;
      if (valueAt(input, issue.path) === undefined) return `${field} is required`;
      return `${field} ${issue.message.startsWith('must') ? issue.message : `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`}`;
    default:
      return field === '' ? issue.message : `${field} ${issue.message}`;
  }
}

/** Validates input against a schema; the first problem becomes a 400 a person can act on. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'request body' | 'query',
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  throw new AgentError(ErrorCodes.API_BAD_REQUEST, describeIssue(issue, where, schema, value));
}

/** The query string as a plain object; a repeated key is refused rather than guessed. */
export function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of query) {
    if (k in out)
      throw new AgentError(ErrorCodes.API_BAD_REQUEST, `query parameter "${k.slice(0, 40)}" is given twice`);
    out[k] = v;
  }
  return out;
}

/** The wire type (what the CLI sends) and the core's levels agree, or this fails to compile. */
export const logLevelBodySchema = z.strictObject({ level: z.enum(LOG_LEVELS) }) satisfies z.ZodType<ApiLogLevelRequest>;

/** GET /api/v1/offline's query (docs/local-api.md, "Paging"). */
export const offlineQuerySchema = z.strictObject({
  /** Comma separated, e.g. `needs_attention,declined_after_upload`. */
  state: z.string().max(200, 'is too long').optional(),
  limit: pageLimitSchema.optional(),
  after: transactionIdSchema
    .optional()
    .describe("the last item's client transaction id of the page before: the next page (the answer's `next`)"),
});

/** POST /api/v1/pairing's body (docs/registers.md, "Pairing"); the OpenAPI document describes it too. */
export const pairingBodySchema = z.strictObject({
  code: z.string().trim().min(1).max(20).describe('the code the terminal shows'),
  name: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[\p{L}\p{N} ._-]+$/u, 'letters, digits, spaces, dots, dashes and underscores only')
    .describe('what the terminal calls this register'),
});
