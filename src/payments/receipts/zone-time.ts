import { AgentError, ErrorCodes, isKnownTimeZone } from '../../core/index.js';
import { zoneOffsetMs } from '../../events/index.js';

/**
 * Dates and times in the reader's time zone for receipts and the end-of-day report
 * (docs/receipts.md, "Language and time zone"). The journal keeps UTC instants; a local day is the
 * half-open range of instants whose local date is that day, so a day with a clock change
 * is 23 or 25 hours long and every instant belongs to exactly one day.
 */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A zone the runtime knows, or INPUT_INVALID naming what to give. */
export function checkTimeZone(timeZone: string): string {
  if (!isKnownTimeZone(timeZone)) {
    throw new AgentError(
      ErrorCodes.INPUT_INVALID,
      `"${timeZone.slice(0, 64)}" is not a time zone: give an IANA name such as Europe/Berlin or UTC`,
    );
  }
  return timeZone;
}

/** The local date and time of an instant in a zone. */
export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** HH:mm:ss */
  time: string;
  /** +HH:MM east of UTC, -HH:MM west. */
  offset: string;
  /** ISO 8601 with the zone's offset, e.g. 2026-03-29T03:15:00+02:00. */
  iso: string;
}

export function localTime(ms: number, timeZone: string): LocalTime {
  const offsetMs = zoneOffsetMs(ms, timeZone);
  const local = new Date(Math.floor(ms / 1000) * 1000 + offsetMs);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  const offset = `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  return { date, time, offset, iso: `${date}T${time}${offset}` };
}

/** The local date (YYYY-MM-DD) of an instant in a zone. */
export function localDate(ms: number, timeZone: string): string {
  return localTime(ms, timeZone).date;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** YYYY-MM-DD naming a real calendar day, or INPUT_INVALID. */
export function checkDate(date: string): { year: number; month: number; day: number } {
  const m = DATE.exec(date);
  if (m === null)
    throw new AgentError(ErrorCodes.INPUT_INVALID, `"${date.slice(0, 20)}" is not a date: expected YYYY-MM-DD`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    throw new AgentError(ErrorCodes.INPUT_INVALID, `${date} is not a calendar date`);
  }
  return { year, month, day };
}

/**
 * The first instant (ms) whose local date is `date` or later. Found by bisection between
 * bounds a day and a half either side of the date's UTC midnight (every offset is within
 * ±14 h), so it holds for any zone and any clock change, also one at midnight.
 */
function startOfLocalDay(year: number, month: number, day: number, timeZone: string): number {
  const target = year * 10_000 + month * 100 + day;
  const key = (ms: number): number => {
    const d = localDate(ms, timeZone);
    return Number(d.slice(0, 4)) * 10_000 + Number(d.slice(5, 7)) * 100 + Number(d.slice(8, 10));
  };
  const midnightUtc = Date.UTC(year, month - 1, day);
  let lo = midnightUtc - 36 * 3_600_000; // local date before the target
  let hi = midnightUtc + 36 * 3_600_000; // local date after it
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (key(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The local day `date` in `timeZone` as a half-open range of instants [from, to). */
export function localDayRange(date: string, timeZone: string): { from: number; to: number } {
  const { year, month, day } = checkDate(date);
  checkTimeZone(timeZone);
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  return {
    from: startOfLocalDay(year, month, day, timeZone),
    to: startOfLocalDay(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone),
  };
}

/** An instant as a reader in `locale` reads it in `timeZone` (docs/receipts.md, "Language and time zone"). */
export interface ReaderTime {
  /** The locale's numeric date: 28.11.2026, 28/11/2026. */
  date: string;
  /** 24 h, HH:mm:ss. */
  time: string;
  /** The zone's short name in the locale (MEZ, MESZ, CET, UTC, GMT+5:30): never an ISO offset. */
  zone: string;
}

const readerFormats = new Map<
  string,
  { date: Intl.DateTimeFormat; time: Intl.DateTimeFormat; zone: Intl.DateTimeFormat }
>();

function formatsFor(
  locale: string,
  timeZone: string,
): { date: Intl.DateTimeFormat; time: Intl.DateTimeFormat; zone: Intl.DateTimeFormat } {
  const key = `${locale} ${timeZone}`;
  let f = readerFormats.get(key);
  if (f === undefined) {
    f = {
      date: new Intl.DateTimeFormat(locale, { timeZone, day: '2-digit', month: '2-digit', year: 'numeric' }),
      // 24 h whatever the locale's habit: a receipt's time is never read as morning or evening.
      time: new Intl.DateTimeFormat(locale, {
        timeZone,
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      }),
      zone: new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' }),
    };
    if (readerFormats.size > 64) readerFormats.clear();
    readerFormats.set(key, f);
  }
  return f;
}

/**
 * The date, 24 h time and zone name of an instant for a reader. The zone's name tells the
 * hour that repeats when clocks go back apart (02:30 MESZ, then 02:30 MEZ), as the offset
 * did. An unusable locale falls back to en-GB.
 */
export function readerTime(ms: number, timeZone: string, locale: string): ReaderTime {
  let f: ReturnType<typeof formatsFor>;
  try {
    f = formatsFor(locale, timeZone);
  } catch {
    f = formatsFor('en-GB', timeZone);
  }
  const at = new Date(Math.floor(ms / 1000) * 1000);
  const zone = f.zone.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  return { date: f.date.format(at), time: f.time.format(at), zone };
}
