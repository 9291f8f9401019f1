import { z } from 'zod';

/**
 * An optional member of a platform answer where `null` means absent, as undefined does
 * (docs/platform-contract.md, "Tolerance of answers"): a value of another type is still refused.
 */
export function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema.optional());
}
