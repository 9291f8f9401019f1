import { describe, expect, it } from 'vitest';
import { parseServerTime, serverTimeEnd } from '../../src/events/server-time.js';

const at = (text: string, zone?: string) => parseServerTime(text, zone)?.at;
const utc = (iso: string) => Date.parse(iso);

describe('server times (docs/platform-contract.md, "Tolerance of answers", dates and time zone)', () => {
  it('reads both server forms with one- or two-digit month, day and hour', () => {
    expect(at('01/05/2026 09:07:03')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026 9:07:03')).toBe(utc('2026-01-05T09:07:03Z'));
    expect(at('1/5/2026 9:07:03 PM')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('12/31/2026 11:59:59 pm')).toBe(utc('2026-12-31T23:59:59Z'));
    expect(at('1/5/2026  9:07:03PM')).toBe(utc('2026-01-05T21:07:03Z'));
    expect(at('1/5/2026 9:07:03 p.m.')).toBe(utc('2026-01-05T21:07:03Z'));
  });

  it('12 AM is midnight and 12 PM is noon; 12:30 AM is half past midnight', () => {
    expect(at('1/5/2026 12:00:00 AM')).toBe(utc('2026-01-05T00:00:00Z'));
    expect(at('1/5/2026 12:30:15 AM')).toBe(utc('2026-01-05T00:30:15Z'));
    expect(at('1/5/2026 12:00:00 PM')).toBe(utc('2026-01-05T12:00:00Z'));
    expect(at('1/5/2026 12:59:59 PM')).toBe(utc('2026-01-05T12:59:59Z'));
    expect(at('1/5/2026 1:00:00 AM')).toBe(utc('2026-01-05T01:00:00Z'));
    expect(at('1/5/2026 11:59:59 PM')).toBe(utc('2026-01-05T23:59:59Z'));
  });

  it('refuses what names no real time', () => {
    for (const bad of [
      '13/1/2026 1:00:00',
      '2/30/2026 1:00:00',
      '1/5/2026 13:00:00 PM',
      '1/5/2026 0:00:00 AM',
      '1/5/2026 24:00:00',
      '1/5/2026 9:60:00',
      'soon',
      '',
      '2026-02-30T10:00:00Z',
    ]) {
      expect(parseServerTime(bad), bad).toBeUndefined();
    }
    expect(parseServerTime(undefined)).toBeUndefined();
    expect(parseServerTime(null)).toBeUndefined();
  });

  it("reads a time without an offset in the platform's zone, one with an offset as it says", () => {
    expect(at('1/5/2026 9:07:03 PM', 'Asia/Singapore')).toBe(utc('2026-01-05T13:07:03Z'));
    expect(at('1/5/2026 12:00:00 AM', 'Asia/Singapore')).toBe(utc('2026-01-04T16:00:00Z'));
    expect(at('12/15/2025 12:05:00 PM', 'America/Los_Angeles')).toBe(utc('2025-12-15T20:05:00Z'));
    expect(at('7/1/2026 12:05:00 PM', 'America/Los_Angeles')).toBe(utc('2026-07-01T19:05:00Z'));
    expect(at('2026-01-05T21:07:03', 'Asia/Singapore')).toBe(utc('2026-01-05T13:07:03Z'));
    expect(at('2026-01-05T21:07:03+08:00', 'America/Los_Angeles')).toBe(utc('2026-01-05T13:07:03Z'));
    expect(at('2026-01-05T21:07:03Z', 'Asia/Singapore')).toBe(utc('2026-01-05T21:07:03Z'));
  });

  it('a wall time that occurs twice (clocks going back) is the later one; one that is skipped (clocks going forward) reads late', () => {
    // Los Angeles: 2026-11-01 01:30 occurs at 08:30Z (PDT) and 09:30Z (PST).
    expect(at('11/1/2026 1:30:00 AM', 'America/Los_Angeles')).toBe(utc('2026-11-01T09:30:00Z'));
    // 2026-03-08 02:30 does not exist in Los Angeles (02:00 PST -> 03:00 PDT): read as 03:30 PDT = 10:30Z.
    expect(at('3/8/2026 2:30:00 AM', 'America/Los_Angeles')).toBe(utc('2026-03-08T10:30:00Z'));
  });

  it("the end of a time is the end of the unit it names, so a deadline never ends before the platform's", () => {
    expect(serverTimeEnd('1/5/2026 9:07:03 PM')).toBe(utc('2026-01-05T21:07:04Z'));
    expect(serverTimeEnd('2026-01-05T21:07:03Z')).toBe(utc('2026-01-05T21:07:04Z'));
    expect(serverTimeEnd('2026-01-05T21:07Z')).toBe(utc('2026-01-05T21:08:00Z'));
    expect(serverTimeEnd('2026-01-05T21:07:03.5Z')).toBe(utc('2026-01-05T21:07:03.600Z'));
    expect(serverTimeEnd('2026-01-05T21:07:03.250Z')).toBe(utc('2026-01-05T21:07:03.250Z'));
  });
});
