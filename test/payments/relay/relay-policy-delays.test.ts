import { describe, expect, it } from 'vitest';
import { defaultRelayPolicy, nextPollDelay, type PollState } from '../../../src/payments/relay/relay-policy.js';

// When the relay asks for a pending QR payment's status next (docs/performance.md, "Quality
// targets", relay: at most 2 status calls per second per pending transaction). Written to
// kill the mutants `npm run mutate` found surviving (test/README.md, "Mutation testing").

const p = defaultRelayPolicy;
const state = (over: Partial<PollState> = {}): PollState => ({
  trackedForMs: 0,
  slowPolls: 0,
  failures: 0,
  msToExpiry: undefined,
  lastCallMs: 0,
  ...over,
});
const SLOW = p.fastPhaseMs; // first instant of the slow phase

describe('while the customer is likely paying', () => {
  it('the shipped policy asks twice a second for the first minute, then once a second', () => {
    expect(nextPollDelay(p, state({ trackedForMs: 0 }))).toBe(500);
    expect(nextPollDelay(p, state({ trackedForMs: 59_999 }))).toBe(500);
    expect(nextPollDelay(p, state({ trackedForMs: 60_000 }))).toBe(1_000);
  });

  it('a call that took a fraction of a millisecond is rounded, and a slow call never makes a negative delay', () => {
    expect(nextPollDelay(p, state({ lastCallMs: 0.4 }))).toBe(500);
    expect(nextPollDelay(p, state({ lastCallMs: 0.6 }))).toBe(499);
    expect(nextPollDelay(p, state({ trackedForMs: SLOW, slowPolls: 4, lastCallMs: 12_000 }))).toBe(0);
  });
});

describe('after the fast phase', () => {
  it('the period doubles with each poll, from 1 s up to 10 s, counted from the start of the last call', () => {
    const delays = [0, 1, 2, 3, 4, 5, 50, 5_000].map((slowPolls) =>
      nextPollDelay(p, state({ trackedForMs: SLOW, slowPolls })),
    );
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000, 10_000]);
    expect(nextPollDelay(p, state({ trackedForMs: SLOW, slowPolls: 2, lastCallMs: 300 }))).toBe(3_700);
  });

  it('a wider cap keeps doubling', () => {
    const wide = { ...p, maxIntervalMs: 1_000_000 };
    expect(nextPollDelay(wide, state({ trackedForMs: SLOW, slowPolls: 9 }))).toBe(512_000);
  });
});

describe('when status calls fail', () => {
  it('the first retry waits up to the base, the third up to four times it (full jitter)', () => {
    expect(nextPollDelay(p, state({ failures: 1 }), () => 0.9)).toBe(900);
    expect(nextPollDelay(p, state({ failures: 3 }), () => 0.5)).toBe(2_000);
    expect(nextPollDelay(p, state({ failures: 20 }), () => 0.999)).toBe(29_970);
  });

  it('never busier than the fast period, whatever the draw, and without a given random too', () => {
    expect(nextPollDelay(p, state({ failures: 1 }), () => 0.1)).toBe(500);
    for (let i = 0; i < 50; i++) {
      const d = nextPollDelay(p, state({ failures: 1, trackedForMs: SLOW, slowPolls: 3 }));
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThan(1_000);
    }
  });
});

describe('the last look when the QR expires', () => {
  it('asks exactly at the expiry when it comes before the next poll', () => {
    expect(nextPollDelay(p, state({ trackedForMs: SLOW, slowPolls: 4, msToExpiry: 2_500 }))).toBe(2_500);
    expect(nextPollDelay(p, state({ failures: 5, msToExpiry: 700 }), () => 0.9)).toBe(700);
    expect(nextPollDelay(p, state({ msToExpiry: 1 }))).toBe(1);
  });

  it('an expiry after the next poll, already past, or unknown changes nothing', () => {
    expect(nextPollDelay(p, state({ msToExpiry: 501 }))).toBe(500);
    expect(nextPollDelay(p, state({ msToExpiry: 0 }))).toBe(500);
    expect(nextPollDelay(p, state({ msToExpiry: -3_000 }))).toBe(500);
    expect(nextPollDelay(p, state({ msToExpiry: undefined }))).toBe(500);
  });
});
