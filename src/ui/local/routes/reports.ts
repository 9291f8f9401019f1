import { endOfDayCsv, endOfDayText, type EndOfDayReport, type ReportsApi } from '../../../payments/index.js';
import { sendText } from '../http-io.js';
import {
  endOfDayQuerySchema,
  type ApiEndOfDay,
  type ApiEndOfDayAnswer,
  parseInput,
  queryObject,
} from '../../shared/index.js';
import type { Router } from '../router.js';
import { clerkOf } from './receipts.js';

/** The report is the wire type, field for field: one changed alone fails to compile here. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
export type EndOfDayMatchesTheWire = [Same<EndOfDayReport, ApiEndOfDay>] extends [true] ? true : never;
const endOfDayMatches: EndOfDayMatchesTheWire = true;
void endOfDayMatches;

/**
 * GET /api/v1/reports/end-of-day?date=YYYY-MM-DD&timeZone=…&format=json|csv|text&width=32|48
 * (docs/receipts.md, "End of day"): the day's totals from the journal, by default today in
 * the reader's zone (receipts.timeZone, else the signed-in clerk's zoneinfo, else api.timeZone,
 * else the terminal's), its printer text in the reader's language.
 */
export function registerReportRoutes(router: Router, deps: { reports: ReportsApi }): void {
  router.add('GET', '/api/v1/reports/end-of-day', (ctx) => {
    const q = parseInput(endOfDayQuerySchema, queryObject(ctx.query), 'query');
    const report = deps.reports.endOfDay({
      ...(q.date !== undefined ? { date: q.date } : {}),
      ...(q.timeZone !== undefined ? { timeZone: q.timeZone } : {}),
      ...clerkOf(ctx.caller),
    });
    if (q.format === 'csv') {
      sendText(ctx.res, 200, 'text/csv; charset=utf-8', endOfDayCsv(report), {
        'content-disposition': `attachment; filename="end-of-day-${report.date}.csv"`,
      });
      return undefined;
    }
    if (q.format === 'text') {
      sendText(ctx.res, 200, 'text/plain; charset=utf-8', endOfDayText(report, q.width === 48 ? 48 : 32));
      return undefined;
    }
    return { status: 200, body: { endOfDay: report } satisfies ApiEndOfDayAnswer };
  });
}
