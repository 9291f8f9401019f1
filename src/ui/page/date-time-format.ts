/**
 * A full date and time in the clerk's own pattern: the `datetimeformat` claim of their token
 * (docs/counter-page.md, "Local API and counter page", languages), e.g. "YYYY-MM-DDTHH:mm:ssZ".
 * Tokens: YYYY year, MM month, DD day, HH hour (00-23), mm minute, ss second, Z the zone's
 * offset ("+01:00"; "Z" itself for UTC); everything else is copied as written. The parts are
 * those of the instant in `timeZone` (the clerk's zone; the browser's when absent).
 */
const TOKENS = /YYYY|MM|DD|HH|mm|ss|Z/g;

interface Parts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  /** Minutes east of UTC. */
  offset: number;
}

function partsIn(d: Date, timeZone: string | undefined): Parts {
  const f = new Intl.DateTimeFormat('en-US', {
    ...(timeZone !== undefined ? { timeZone } : {}),
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(d)) p[part.type] = part.value;
  const num = (k: string): number => Number(p[k]);
  // The zone's offset: the wall clock read as if it were UTC, minus the instant (whole seconds).
  const wall = Date.UTC(num('year'), num('month') - 1, num('day'), num('hour'), num('minute'), num('second'));
  const offset = Math.round((wall - Math.floor(d.getTime() / 1000) * 1000) / 60_000);
  return {
    year: String(num('year')).padStart(4, '0'),
    month: p.month ?? '',
    day: p.day ?? '',
    hour: p.hour ?? '',
    minute: p.minute ?? '',
    second: p.second ?? '',
    offset,
  };
}

function offsetText(minutes: number): string {
  if (minutes === 0) return 'Z';
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** `d` written in `pattern` in `timeZone`; throws RangeError for a zone the browser does not know. */
export function formatDateTime(d: Date, pattern: string, timeZone?: string): string {
  const p = partsIn(d, timeZone);
  return pattern.replace(TOKENS, (token) => {
    switch (token) {
      case 'YYYY':
        return p.year;
      case 'MM':
        return p.month;
      case 'DD':
        return p.day;
      case 'HH':
        return p.hour;
      case 'mm':
        return p.minute;
      case 'ss':
        return p.second;
      default:
        return offsetText(p.offset);
    }
  });
}

/**
 * Whether a pattern names at least one date or time token and is meant for people (else the
 * locale's own format is used). An ISO 8601 interchange pattern (`DDTHH`, the demo realm's
 * default) is how machines exchange times: a clerk is shown the locale's format instead.
 */
export function usablePattern(pattern: string | undefined): pattern is string {
  return pattern !== undefined && pattern.length <= 64 && /YYYY|MM|DD|HH|mm|ss/.test(pattern) && !/DDTHH/.test(pattern);
}
