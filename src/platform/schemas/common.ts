import { z } from 'zod';

/**
 * Building blocks shared by request and response schemas. Requests are strict (a typo or
 * an extra field is our bug); responses are loose (unknown fields kept, optional fields
 * tolerated, a wrong type an error naming the field).
 */

/** ISO 4217 alphabetic code. */
export const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 code such as EUR');

/** Integer amount in the smallest unit of the currency (docs/platform-contract.md, introduction). */
export const minorUnits = z
  .number()
  .int('expected an integer amount in minor units')
  .min(0)
  .max(Number.MAX_SAFE_INTEGER);

/**
 * clientDateTime is ISO 8601, with or without milliseconds and Z (the platform takes
 * either); the agent sends UTC with milliseconds and Z (docs/platform-contract.md, "Endpoints").
 */
export const clientDateTime = z.iso.datetime({ offset: true, local: true, error: 'expected an ISO 8601 date-time' });

/** Amount object of a request `{amount, currency}` (docs/platform-contract.md, introduction). */
export const amountRequest = z.strictObject({ amount: minorUnits, currency: currencyCode });
export type AmountRequest = z.infer<typeof amountRequest>;

/**
 * Amount object of an answer: `amount` and `currency`, some result objects use `value`
 * (string) instead, fee objects `currency_code` and `value` (the platform's
 * sub-objects, read leniently: docs/platform-contract.md, "Tolerance of answers").
 */
export const amountResponse = z.looseObject({
  amount: z.number().optional(),
  currency: z.string().optional(),
  value: z.string().optional(),
  currency_code: z.string().optional(),
});
export type AmountResponse = z.infer<typeof amountResponse>;

/** Any JSON object, kept as it came. */
export const anyObject = z.record(z.string(), z.unknown());
