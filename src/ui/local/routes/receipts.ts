import { AgentError, ErrorCodes } from '../../../core/index.js';
import { receiptText, type ReaderClaims, type ReceiptData, type ReportsApi } from '../../../payments/index.js';
import type { Caller } from '../caller.js';
import { sendText } from '../http-io.js';
import {
  receiptQuerySchema,
  type ApiReceipt,
  type ApiReceiptAnswer,
  parseInput,
  queryObject,
  transactionIdSchema,
} from '../../shared/index.js';
import type { Router } from '../router.js';

/** The receipt data is the wire type, field for field: one changed alone fails to compile here. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
export type ReceiptMatchesTheWire = [Same<ReceiptData, ApiReceipt>] extends [true] ? true : never;
const receiptMatches: ReceiptMatchesTheWire = true;
void receiptMatches;

/** The signed-in clerk's locale and zone claims; none for a program with the token or a register (docs/receipts.md, "Language and time zone"). */
export function clerkOf(caller: Caller | undefined): { clerk?: ReaderClaims } {
  const s = caller?.staff;
  if (s === undefined) return {};
  return {
    clerk: {
      ...(s.locale !== undefined ? { locale: s.locale } : {}),
      ...(s.zoneinfo !== undefined ? { timeZone: s.zoneinfo } : {}),
    },
  };
}

/**
 * GET /api/v1/transactions/{id}/receipt?copy=customer|merchant&format=json|text&width=32|48
 * (docs/receipts.md, "Receipts"): a final transaction's receipt as JSON or printer text;
 * one not final yet is 409 PAYMENT_STATE, one not in the journal 404. Written in the
 * reader's language and zone: receipts.*, else the signed-in clerk's claims, else api.*.
 */
export function registerReceiptRoutes(router: Router, deps: { reports: ReportsApi }): void {
  router.add('GET', '/api/v1/transactions/:id/receipt', (ctx) => {
    const q = parseInput(receiptQuerySchema, queryObject(ctx.query), 'query');
    const id = transactionIdSchema.safeParse(ctx.params.id);
    if (!id.success)
      throw new AgentError(ErrorCodes.API_BAD_REQUEST, `transaction id ${id.error.issues[0]?.message ?? 'is invalid'}`);
    const receipt = deps.reports.receipt(id.data, { copy: q.copy ?? 'customer', ...clerkOf(ctx.caller) });
    if (q.format === 'text') {
      sendText(ctx.res, 200, 'text/plain; charset=utf-8', receiptText(receipt, q.width === 48 ? 48 : 32));
      return undefined;
    }
    return { status: 200, body: { receipt } satisfies ApiReceiptAnswer };
  });
}
