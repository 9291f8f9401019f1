import currencyCodes from 'currency-codes';
import { z } from 'zod';

/** An amount object: integer minor units of an ISO 4217 currency (docs/platform-contract.md, introduction). */
export interface Amount {
  amount: number;
  currency: string;
}

/** Minor-unit digits of an ISO 4217 currency, undefined when the code is unknown. */
export function currencyDigits(code: string): number | undefined {
  const record = currencyCodes.code(code);
  return record === undefined || !Number.isInteger(record.digits) ? undefined : record.digits;
}

/**
 * An integer of the currency's smallest unit (docs/platform-contract.md, introduction), so
 * non-integers, zero and negative amounts and unknown currencies are refused.
 */
export const amountSchema = z.object({
  amount: z
    .number({ error: 'amount must be a number of minor units' })
    .int('amount must be an integer of minor units (ISO 4217)')
    .positive('amount must be greater than zero')
    .max(Number.MAX_SAFE_INTEGER, 'amount too large'),
  currency: z
    .string({ error: 'currency must be an ISO 4217 code' })
    .refine((c) => /^[A-Z]{3}$/.test(c) && currencyDigits(c) !== undefined, { message: 'unknown ISO 4217 currency' }),
});

/** Major-unit decimal string ("12.50", "1200" for JPY), as wallet amount objects carry it. */
export function majorUnits(amount: number, currency: string): string {
  const digits = currencyDigits(currency) ?? 2;
  if (digits === 0) return String(amount);
  const sign = amount < 0 ? '-' : '';
  const abs = String(Math.abs(amount)).padStart(digits + 1, '0');
  return `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}
