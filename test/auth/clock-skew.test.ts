import { describe, expect, it } from 'vitest';
import { ClockSkewMeter } from '../../src/auth/index.js';
import { testLogger } from '../helpers/log-sink.js';

/*
 * The platform's two readings of its own time: a token answer's Date header and the token's
 * iat (docs/architecture.md, "Time"). More than a minute apart, one of the platform's clocks
 * is wrong: one warning with both times, and a QR's expiry is judged on the earlier.
 */
const AT = Date.parse('2026-12-15T20:00:00Z');

function warnings(sink: ReturnType<typeof testLogger>['sink']): Array<Record<string, unknown>> {
  return sink.records().filter((r) => r.level === 40);
}

describe("the platform's clock against the token's iat", () => {
  it('more than a minute apart: one warning naming both times, not repeated while they stay apart, again after they agreed', () => {
    const { log, sink } = testLogger('debug');
    const skew = new ClockSkewMeter(30_000, log);
    skew.record({ dateMs: AT, receivedAtMs: AT, receivedMono: 0 }, (AT + 61_000) / 1000);
    expect(warnings(sink)).toMatchObject([
      {
        platformDate: '2026-12-15T20:00:00.000Z',
        tokenIssuedAt: '2026-12-15T20:01:01.000Z',
        differenceMs: 61_000,
        msg: expect.stringContaining('disagree by more than a minute'),
      },
    ]);
    skew.record({ dateMs: AT + 10_000, receivedAtMs: AT + 10_000, receivedMono: 10_000 }, (AT + 90_000) / 1000);
    expect(warnings(sink)).toHaveLength(1);
    // They agree again (a second apart, as whole seconds written moments apart may): no warning; apart again: a new one.
    skew.record({ dateMs: AT + 20_000, receivedAtMs: AT + 20_000, receivedMono: 20_000 }, (AT + 21_000) / 1000);
    expect(warnings(sink)).toHaveLength(1);
    skew.record({ dateMs: AT + 30_000, receivedAtMs: AT + 30_000, receivedMono: 30_000 }, (AT - 60_000) / 1000);
    expect(warnings(sink)).toHaveLength(2);
    expect(warnings(sink)[1]).toMatchObject({
      platformDate: '2026-12-15T20:00:30.000Z',
      tokenIssuedAt: '2026-12-15T19:59:00.000Z',
      differenceMs: -90_000,
    });
  });

  it('a minute apart or less is no disagreement: no warning', () => {
    const { log, sink } = testLogger('debug');
    const skew = new ClockSkewMeter(30_000, log);
    skew.record({ dateMs: AT, receivedAtMs: AT, receivedMono: 0 }, (AT + 60_000) / 1000);
    skew.record({ dateMs: AT, receivedAtMs: AT, receivedMono: 0 }, (AT - 60_000) / 1000);
    skew.record({ dateMs: AT, receivedAtMs: AT, receivedMono: 0 }, undefined);
    expect(warnings(sink)).toEqual([]);
  });

  it("the platform's time is the later reading when they agree and the earlier when they disagree, so a QR never ends before the platform's expiry", () => {
    const skew = new ClockSkewMeter(30_000, testLogger().log);
    skew.record({ dateMs: AT, receivedAtMs: AT, receivedMono: 1_000 }, (AT + 1_000) / 1000);
    expect(skew.platformNow(1_500)).toBe(AT + 1_500);
    skew.record({ dateMs: AT, receivedAtMs: AT, receivedMono: 1_000 }, (AT + 300_000) / 1000);
    expect(skew.platformNow(1_500)).toBe(AT + 500);
    skew.record({ dateMs: AT + 300_000, receivedAtMs: AT, receivedMono: 1_000 }, AT / 1000);
    expect(skew.platformNow(1_500)).toBe(AT + 500);
  });
});
