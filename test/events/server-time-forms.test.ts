import { describe, expect, it } from 'vitest';
import { parseServerTime, serverTimeEnd } from '../../src/events/server-time.js';

// Every spelling the platform may use for a time, and every edge of a real date and time
// (docs/platform-contract.md, "Tolerance of answers", dates and time zone).
const at = (text: string, zone?: string) => parseServerTime(text, zone)?.at;
const unit = (text: string) => parseServerTime(text)?.unitMs;
const utc = (iso: string) => Date.parse(iso);

describe('the 12-hour form in every spelling', () => {
  it('AM and PM in any case, with dots, spaces inside or none before', () => {
    expect(at('1/5/2026 9:07:03 am')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026 9:07:03 a.m.')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026 9:07:03 A. M.')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026 9:07:03 Pm')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('1/5/2026 9:07:03pm')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('1/5/2026 9:07:03P.M')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('1/5/2026 9:07 PM')).toBe(utc('2026-01-05T21:07:00Z'));
  });

  it('only A or P before the M: anything else is no time', () => {
    for (const bad of ['1/5/2026 9:07:03 XM', '1/5/2026 9:07:03 A', '1/5/2026 9:07:03 AMM', '1/5/2026 9:07:03 A..M']) {
      expect(parseServerTime(bad), bad).toBeUndefined();
    }
  });
});

describe('the month/day/year form', () => {
  it('one-digit minutes and seconds, a T or several spaces between date and time, spaces around the text', () => {
    expect(at('1/5/2026 9:7:3')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026T9:07:03')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026   9:07:03')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('  01/05/2026 09:07:03  ')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026 09:07:03.25 PM')).toBe(utc('2026-01-05T21:07:03.250Z'));
  });

  it('the last moment of each part is a time; one more is not', () => {
    expect(at('12/31/2026 23:59:59')).toBe(utc('2026-12-31T23:59:59Z'));
    expect(at('1/1/2026 0:00:00')).toBe(utc('2026-01-01T00:00:00Z'));
    expect(at('2/29/2028 10:00:00')).toBe(utc('2028-02-29T10:00:00Z'));
    expect(at('4/30/2026 10:00:00')).toBe(utc('2026-04-30T10:00:00Z'));
    for (const bad of [
      '0/5/2026 1:00:00',
      '1/0/2026 1:00:00',
      '1/32/2026 1:00:00',
      '2/29/2026 1:00:00',
      '4/31/2026 1:00:00',
      '1/5/2026 1:00:60',
      '1/5/2026 1:00:00 XM',
    ]) {
      expect(parseServerTime(bad), bad).toBeUndefined();
    }
  });

  it('nothing before or after the time, and no three-digit parts', () => {
    for (const bad of [
      'x1/5/2026 1:00:00',
      '1/5/2026 1:00:00x',
      '1/5/2026 1:00:00 PM x',
      '123/5/2026 1:00:00',
      '1/5/2026 123:00:00',
      '1/5/26 1:00:00',
      '1/5/2026',
      '1/5/2026 1',
      '1/5/2026 a:00:00',
    ]) {
      expect(parseServerTime(bad), bad).toBeUndefined();
    }
  });
});

describe('the ISO 8601 form', () => {
  it('T, t or a space between date and time; a comma or a dot before the fraction', () => {
    expect(at('2026-01-05t21:07:03Z')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('2026-01-05 21:07:03Z')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('2026-01-05T21:07:03,5Z')).toBe(utc('2026-01-05T21:07:03.500Z'));
    expect(at('2026-01-05T21:07Z')).toBe(utc('2026-01-05T21:07:00Z'));
  });

  it('every offset spelling: Z or z, +hh, +hhmm, +hh:mm, west of UTC, half hours, a space before it', () => {
    expect(at('2026-01-05T21:07:03z', 'Asia/Singapore')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('2026-01-05T21:07:03+08')).toBe(utc('2026-01-05T13:07:03Z'));
    expect(at('2026-01-05T21:07:03+0800')).toBe(utc('2026-01-05T13:07:03Z'));
    expect(at('2026-01-05T21:07:03-05:00')).toBe(utc('2026-01-06T02:07:03Z'));
    expect(at('2026-01-05T21:07:03+05:30')).toBe(utc('2026-01-05T15:37:03Z'));
    expect(at('2026-01-05T21:07:03-0330')).toBe(utc('2026-01-06T00:37:03Z'));
    expect(at('2026-01-05T21:07:03 +08:00')).toBe(utc('2026-01-05T13:07:03Z'));
    expect(at('2026-01-05T21:07:03.250+01:00')).toBe(utc('2026-01-05T20:07:03.250Z'));
  });

  it('the last moment of each part is a time; one more is not', () => {
    expect(at('2026-12-31T23:59:59Z')).toBe(utc('2026-12-31T23:59:59Z'));
    expect(at('2026-01-01T00:00:00Z')).toBe(utc('2026-01-01T00:00:00Z'));
    expect(at('2028-02-29T10:00:00')).toBe(utc('2028-02-29T10:00:00Z'));
    for (const bad of [
      '2026-13-05T10:00:00Z',
      '2026-00-05T10:00:00Z',
      '2026-01-00T10:00:00Z',
      '2026-01-32T10:00:00Z',
      '2026-04-31T10:00:00Z',
      '2026-01-05T24:00:00Z',
      '2026-01-05T10:60:00Z',
      '2026-01-05T10:00:60Z',
    ]) {
      expect(parseServerTime(bad), bad).toBeUndefined();
    }
  });

  it('nothing before or after the time, two digits for each part, no other offset', () => {
    for (const bad of [
      'x2026-01-05T10:00:00Z',
      '2026-01-05T10:00:00Zx',
      '2026-1-05T10:00:00Z',
      '2026-01-05T1:00:00Z',
      '2026-01-05T10:00:00+8',
      '2026-01-05T10:00:00 UTC',
      '2026-01-05T10:00:00.Z',
      '2026-01-05X10:00:00Z',
    ]) {
      expect(parseServerTime(bad), bad).toBeUndefined();
    }
  });
});

describe('how precisely a time is named', () => {
  it('minutes, seconds, tenths, hundredths, milliseconds and anything finer as a millisecond', () => {
    expect(unit('1/5/2026 9:07 PM')).toBe(60_000);
    expect(unit('1/5/2026 9:07:03 PM')).toBe(1_000);
    expect(unit('2026-01-05T21:07:03.5Z')).toBe(100);
    expect(unit('2026-01-05T21:07:03.25Z')).toBe(10);
    expect(unit('2026-01-05T21:07:03.250Z')).toBe(1);
    expect(unit('2026-01-05T21:07:03.123456Z')).toBe(1);
    expect(at('2026-01-05T21:07:03.123456Z')).toBe(utc('2026-01-05T21:07:03.123Z'));
  });

  it('a deadline ends after the unit it names, at the millisecond itself when it names one, and text that is no time has no end', () => {
    expect(serverTimeEnd('2026-01-05T21:07:03.25Z')).toBe(utc('2026-01-05T21:07:03.260Z'));
    expect(serverTimeEnd('2026-01-05T21:07:03.123456Z')).toBe(utc('2026-01-05T21:07:03.123Z'));
    expect(serverTimeEnd('1/5/2026 9:07 PM', 'Asia/Singapore')).toBe(utc('2026-01-05T13:08:00Z'));
    expect(serverTimeEnd('soon')).toBeUndefined();
    expect(serverTimeEnd(undefined)).toBeUndefined();
  });
});

describe('times in zones east of UTC', () => {
  it('a fraction of a second is kept in a zone with an offset', () => {
    expect(at('1/5/2026 9:07:03.250 PM', 'Asia/Singapore')).toBe(utc('2026-01-05T13:07:03.250Z'));
  });

  it('Berlin: a wall time skipped when clocks go forward reads late; one repeated when they go back is the later one', () => {
    // 2026-03-29 02:30 does not exist in Berlin (02:00 CET -> 03:00 CEST): read as 03:30 CEST = 01:30Z.
    expect(at('3/29/2026 2:30:00 AM', 'Europe/Berlin')).toBe(utc('2026-03-29T01:30:00Z'));
    // 2026-10-25 02:30 occurs at 00:30Z (CEST) and 01:30Z (CET).
    expect(at('10/25/2026 2:30:00 AM', 'Europe/Berlin')).toBe(utc('2026-10-25T01:30:00Z'));
    expect(at('2026-07-01T12:00:00', 'Europe/Berlin')).toBe(utc('2026-07-01T10:00:00Z'));
  });

  it('on the day clocks change, a time after the change reads with the new offset, one before it with the old', () => {
    expect(at('3/29/2026 12:00:00 PM', 'Europe/Berlin')).toBe(utc('2026-03-29T10:00:00Z'));
    expect(at('3/29/2026 1:00:00 AM', 'Europe/Berlin')).toBe(utc('2026-03-29T00:00:00Z'));
    expect(at('3/8/2026 10:00:00 AM', 'America/Los_Angeles')).toBe(utc('2026-03-08T17:00:00Z'));
    expect(at('3/7/2026 11:00:00 PM', 'America/Los_Angeles')).toBe(utc('2026-03-08T07:00:00Z'));
    expect(at('11/1/2026 11:00:00 PM', 'America/Los_Angeles')).toBe(utc('2026-11-02T07:00:00Z'));
  });
});
