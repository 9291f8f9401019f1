import { z } from 'zod';
import { childPlatformFields } from '../../lib/child-platform-options.js';

/** Options of the online chaos child (scripts/chaos/online/child.ts), passed as one JSON argument. */
export const chaosChildOptionsSchema = z.strictObject({
  ...childPlatformFields,
  /** Sales in the journal when the stream ends (counted over every run, from the journal). */
  sales: z.number().int().min(0),
  /** Seed of this run's operation stream (the parent derives it from its own seed and the run). */
  seed: z.number().int(),
  /** Operations running at once (card sales share the reader, so they queue for it). */
  workers: z.number().int().min(1).default(4),
  /** Recover and settle only: no new operations, then exit 0. */
  final: z.boolean().default(false),
  /** Short platform timeouts so unknown outcomes happen under injected latency. */
  headersTimeoutMs: z.number().int().positive().default(400),
  lookupGraceMs: z.number().int().min(0).default(2_500),
  /** How long a run waits for every row to settle once its stream ended. */
  settleTimeoutMs: z.number().int().positive().default(30_000),
});
export type ChaosChildOptions = z.input<typeof chaosChildOptionsSchema>;

/** Merchants of the demo seed: m-1001 captures at once, m-1002 authorizes only and wants the supervisor code. */
export const MERCHANTS = ['m-1001', 'm-1002'] as const;
/** config/demo-seed.json: the approval code of m-1002's aggregator (refunds and voids). */
export const SUPERVISOR_CODE = '4711';

/**
 * The child's stdout protocol, one line each, written once the fact is in the journal:
 *   READY <sales in the journal> <recovery json> | SALE <count> <id> | DONE <id> <state>
 *   OP <kind> <sale id> <state or error code> | SALES_DONE | SETTLED <json> | ERROR <text>
 */
export type ChildLineKind = 'READY' | 'SALE' | 'DONE' | 'OP' | 'SALES_DONE' | 'SETTLED' | 'ERROR';
