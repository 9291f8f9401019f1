import { afterEach, describe, expect, it } from 'vitest';
import { isKnownTimeZone } from '../../src/core/index.js';

const RealDateTimeFormat = Intl.DateTimeFormat;
afterEach(() => {
  Intl.DateTimeFormat = RealDateTimeFormat;
});

/** Counts the formatters made from now on. */
function countFormatters(): () => number {
  let made = 0;
  Intl.DateTimeFormat = new Proxy(RealDateTimeFormat, {
    construct(target, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      made++;
      return new target(...args);
    },
    apply(target, _this, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      made++;
      return target(...args);
    },
  });
  return () => made;
}

function formatterTakes(name: string): boolean {
  try {
    new RealDateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

describe('isKnownTimeZone', () => {
  it("answers as Intl's formatter does: listed zones, UTC, aliases, other cases and offsets; not unknown names", () => {
    const names = [
      'UTC',
      'Asia/Singapore',
      'Europe/Berlin',
      'America/Argentina/Buenos_Aires',
      'Etc/UTC',
      'GMT',
      'US/Pacific',
      'Asia/Calcutta',
      'europe/berlin',
      'utc',
      '+01:00',
      'Etc/GMT+5',
      'Mars/Olympus',
      '',
      ' UTC',
      'Europe/Berlin ',
    ];
    for (const name of names) expect(isKnownTimeZone(name), name).toBe(formatterTakes(name));
    expect(isKnownTimeZone('Mars/Olympus')).toBe(false);
    expect(isKnownTimeZone('Asia/Singapore')).toBe(true);
  });

  it('makes no formatter for UTC or a zone Intl lists: the first pages in ICU date data an idle terminal does not need (docs/performance.md, "Memory")', () => {
    const made = countFormatters();
    expect(isKnownTimeZone('UTC')).toBe(true);
    expect(isKnownTimeZone('Europe/Berlin')).toBe(true);
    expect(isKnownTimeZone('Asia/Singapore')).toBe(true);
    expect(made()).toBe(0);
    // The counter works: a name Intl does not list is tried with a formatter.
    expect(isKnownTimeZone('Mars/Olympus')).toBe(false);
    expect(made()).toBe(1);
  });
});
