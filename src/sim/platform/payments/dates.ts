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

const twelveHour = new Map<string, Intl.DateTimeFormat>();

/**
 * The strict profile's server time: the 12-hour form `M/D/YYYY h:mm:ss AM/PM` in the
 * platform's zone, month, day and hour without leading zeros (12 AM is midnight, 12 PM
 * noon), e.g. 1/5/2026 9:07:03 PM (docs/demo-platform.md, "Demo platform").
 */
export function serverTime12(ms: number, timeZone: string): string {
  let f = twelveHour.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hour12: true,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    });
    twelveHour.set(timeZone, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(new Date(ms))) p[part.type] = part.value;
  const hour = Number(p.hour) % 12 === 0 ? 12 : Number(p.hour) % 12;
  return `${Number(p.month)}/${Number(p.day)}/${p.year} ${hour}:${p.minute}:${p.second} ${String(p.dayPeriod).toUpperCase()}`;
}

const STANDARD = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * The instant of a time this platform wrote itself: its standard server form (UTC) or an
 * ISO 8601 time with an offset; undefined for anything else.
 */
export function instantOf(text: string): number | undefined {
  const m = STANDARD.exec(text);
  if (m) return Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]), Number(m[4]), Number(m[5]), Number(m[6]));
  if (!/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/;

/** Request clientDateTime is ISO 8601, with or without milliseconds and Z (the platform takes either). */
export const clientDateTimeSchema = z
  .string({ error: 'clientDateTime must be an ISO 8601 date-time' })
  .refine((s) => ISO_8601.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'clientDateTime must be an ISO 8601 date-time',
  });
