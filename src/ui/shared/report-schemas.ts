import { z } from 'zod';

/**
 * Query shapes of the receipt and end-of-day routes (docs/receipts.md), zod, unknown
 * parameters refused like every other route's (schemas.ts parseInput names them).
 */

const width = z.enum(['32', '48'], { error: 'must be 32 or 48 (printer columns)' }).transform(Number).optional();

export const receiptQuerySchema = z.strictObject({
  copy: z.enum(['customer', 'merchant']).optional(),
  format: z.enum(['json', 'text']).optional(),
  width,
});

export const endOfDayQuerySchema = z.strictObject({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2026-03-29')
    .optional(),
  timeZone: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
  format: z.enum(['json', 'csv', 'text']).optional(),
  width,
});
