import { describe, expect, it } from 'vitest';
import { formatDateTime, usablePattern } from '../../src/ui/page/date-time-format.js';

/** The clerk's `datetimeformat` pattern (docs/counter-page.md, "Local API and counter page", languages). */
describe('formatDateTime', () => {
  const winter = new Date('2026-01-15T12:05:09.750Z');
  const summer = new Date('2026-07-01T23:30:00Z');

  it("writes the demo realm's pattern in the clerk's zone, with its offset", () => {
    expect(formatDateTime(winter, 'YYYY-MM-DDTHH:mm:ssZ', 'Europe/Berlin')).toBe('2026-01-15T13:05:09+01:00');
    // Summer time, and the day after in Berlin.
    expect(formatDateTime(summer, 'YYYY-MM-DDTHH:mm:ssZ', 'Europe/Berlin')).toBe('2026-07-02T01:30:00+02:00');
  });

  it('west of UTC, a half-hour zone and UTC itself', () => {
    expect(formatDateTime(winter, 'YYYY-MM-DD HH:mm Z', 'America/New_York')).toBe('2026-01-15 07:05 -05:00');
    expect(formatDateTime(winter, 'HH:mm Z', 'Asia/Kolkata')).toBe('17:35 +05:30');
    expect(formatDateTime(winter, 'HH:mm:ssZ', 'UTC')).toBe('12:05:09Z');
  });

  it('other orders and separators; midnight is 00, not 24; other letters are copied', () => {
    expect(formatDateTime(new Date('2026-03-04T23:00:00Z'), 'DD.MM.YYYY HH:mm', 'Europe/Berlin')).toBe(
      '05.03.2026 00:00',
    );
    expect(formatDateTime(winter, 'at HH h', 'UTC')).toBe('at 12 h');
  });

  it('a zone the browser does not know is an error the caller handles', () => {
    expect(() => formatDateTime(winter, 'HH', 'Mars/Olympus')).toThrow(RangeError);
  });

  it('a pattern without any date or time token, absurdly long, or the ISO 8601 interchange form, is not used', () => {
    expect(usablePattern('DD.MM.YYYY HH:mm')).toBe(true);
    expect(usablePattern('YYYY-MM-DD HH:mm:ss Z')).toBe(true);
    // Machines exchange times so; a clerk reads the locale's own format instead.
    expect(usablePattern('YYYY-MM-DDTHH:mm:ssZ')).toBe(false);
    expect(usablePattern('Z')).toBe(false);
    expect(usablePattern('')).toBe(false);
    expect(usablePattern(undefined)).toBe(false);
    expect(usablePattern(`YYYY${' '.repeat(80)}`)).toBe(false);
  });
});
