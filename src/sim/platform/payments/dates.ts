import { z } from 'zod';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Server-produced event times are MM/DD/YYYY HH:mm:ss, UTC here (docs/platform-contract.md, "Tolerance of answers"). */
export function serverTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** ISO 8601 with an explicit offset (refundTime, wallet expireTime), e.g. 2026-01-02T08:15:00+08:00. */
export function isoWithOffset(ms: number, offsetMinutes = 0): string {
  const d = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/;

/** Request clientDateTime is ISO 8601, with or without milliseconds and Z (the platform takes either). */
export const clientDateTimeSchema = z
  .string({ error: 'clientDateTime must be an ISO 8601 date-time' })
  .refine((s) => ISO_8601.test(s) && !Number.isNaN(Date.parse(s)), { message: 'clientDateTime must be an ISO 8601 date-time' });
