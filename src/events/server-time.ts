/**
 * Reading the platform's server-produced times (docs/platform-contract.md, "Tolerance of
 * answers", dates and time zone). The platform writes them as `MM/DD/YYYY HH:mm:ss` or
 * in a 12-hour form `M/D/YYYY h:mm:ss AM/PM`, with one- or two-digit month, day and hour,
 * in its own time zone (config `platform.timeZone`, an IANA name); some fields (a QR's
 * `expireTime`) may come as ISO 8601 instead, with or without an offset.
 */

/** An instant named by a server time, and how precisely the text names it. */
export interface ServerTime {
  /** Epoch milliseconds of the start of the named time. */
  at: number;
  /** Length of the unit the text names (1000 for whole seconds, 60000 for minutes, 1 for milliseconds). */
  unitMs: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  // Stryker disable next-line ConditionalExpression: a formatter made afresh each time reads the same; the cache only saves its cost
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    // Stryker disable next-line CallExpression: not keeping the formatter only costs making it again
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in milliseconds (east positive). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  // The literal parts (separators) are kept too, under "literal", and never read.
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall-clock time names in a zone. A time that occurs twice (the hour
 * repeated when clocks go back) is taken as the later one, and a time that does not occur
 * (skipped when clocks go forward) as the later reading too: an expiry read this way never
 * ends before the platform's.
 */
export function zonedToEpoch(
  wall: { year: number; month: number; day: number; hour: number; minute: number; second: number; ms?: number },
  timeZone: string,
): number {
  const guess = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.ms ?? 0);
  const offsets = [
    ...new Set([
      zoneOffsetMs(guess - 86_400_000, timeZone),
      zoneOffsetMs(guess, timeZone),
      zoneOffsetMs(guess + 86_400_000, timeZone),
    ]),
  ];
  const valid = offsets.map((o) => guess - o).filter((t) => t + zoneOffsetMs(t, timeZone) === guess);
  if (valid.length > 0) return Math.max(...valid);
  return guess - Math.min(...offsets);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function unitOf(seconds: string | undefined, fraction: string | undefined): number {
  if (seconds === undefined) return 60_000;
  if (fraction === undefined) return 1_000;
  // Tenths name 100 ms, hundredths 10 ms, anything finer a millisecond (the finest kept).
  return Math.max(1, 10 ** (3 - fraction.length));
}

function msOf(fraction: string | undefined): number {
  return fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
}

/**
 * A server time as the instant it names, in the platform's time zone when the text has no
 * offset of its own; undefined when it is in neither form or names no real date (13/01,
 * 2/30, 13 PM).
 */
export function parseServerTime(text: string | undefined | null, timeZone = 'UTC'): ServerTime | undefined {
  if (typeof text !== 'string') return undefined;
  const s = text.trim();
  // The patterns are written where they are used: a pattern built when the module loads is
  // re-tested with every test by mutation testing (test/README.md, "Mutation testing").
  const us =
    /^(\d{1,2})\/(\d{1,2})\/(\d{4})[ T]+(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?(?:\s*([AaPp])\.?\s*[Mm]\.?)?$/.exec(
      s,
    );
  if (us) {
    const [, mo, d, y, h, mi, sec, frac, ampm] = us;
    const year = Number(y);
    const month = Number(mo);
    const day = Number(d);
    let hour = Number(h);
    const minute = Number(mi);
    const second = Number(sec ?? 0);
    if (ampm !== undefined) {
      // 12 AM is midnight, 12 PM noon (docs/platform-contract.md, "Tolerance of answers").
      if (hour < 1 || hour > 12) return undefined;
      hour = (hour % 12) + (ampm.toUpperCase() === 'P' ? 12 : 0);
    }
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
      return undefined;
    return {
      at: zonedToEpoch({ year, month, day, hour, minute, second, ms: msOf(frac) }, timeZone),
      unitMs: unitOf(sec, frac),
    };
  }
  const iso =
    /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
      s,
    );
  if (iso) {
    const [, y, mo, d, h, mi, sec, frac, offset] = iso;
    const year = Number(y);
    const month = Number(mo);
    const day = Number(d);
    const hour = Number(h);
    const minute = Number(mi);
    const second = Number(sec ?? 0);
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
      return undefined;
    const wall = { year, month, day, hour, minute, second, ms: msOf(frac) };
    const unitMs = unitOf(sec, frac);
    if (offset === undefined) return { at: zonedToEpoch(wall, timeZone), unitMs };
    const asUtc = Date.UTC(year, month - 1, day, hour, minute, second, wall.ms);
    // Z (in any case) has no sign and no digits: it reads as an offset of 0.
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    const offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0)) * 60_000;
    return { at: asUtc - offsetMs, unitMs };
  }
  return undefined;
}

/**
 * The end of a server time: the first instant after everything the text can mean. A
 * deadline read this way (a QR's expiry) is never earlier than the platform's, which may
 * have cut its own fraction of a second off when it wrote the time.
 */
export function serverTimeEnd(text: string | undefined | null, timeZone = 'UTC'): number | undefined {
  const t = parseServerTime(text, timeZone);
  if (t === undefined) return undefined;
  return t.unitMs <= 1 ? t.at : t.at + t.unitMs;
}
