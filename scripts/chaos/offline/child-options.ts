import { z } from 'zod';
import { childPlatformFields } from '../../lib/child-platform-options.js';

/** Options of the offline burst child (scripts/chaos/offline/child.ts), passed as one JSON argument. */
export const burstOptionsSchema = z.strictObject({
  ...childPlatformFields,
  /** Ids are `<prefix>-<run>-<n>`: each run takes new sales. */
  prefix: z.string(),
  run: z.number().int().min(0),
  sales: z.number().int().min(0),
  /** Pause between sales (the uploader works meanwhile). */
  pauseMs: z.number().int().min(0).default(5),
  uploadConcurrency: z.number().int().min(1).default(2),
  /** `payments.lookupGraceMs` of the uploader: longer than any lookup lag the run injects. */
  lookupGraceMs: z.number().int().min(0).default(2_000),
  /** Take no sales; upload until the queue is empty, then exit 0. */
  drain: z.boolean().default(false),
});
export type BurstOptions = z.input<typeof burstOptionsSchema>;

/** Amounts never end in 51 minor units (the demo platform declines those): every upload is accepted. */
export function burstAmount(run: number, n: number): number {
  const a = 100 + ((run * 7919 + n * 104_729) % 20_000);
  return a % 100 === 51 ? a + 1 : a;
}
