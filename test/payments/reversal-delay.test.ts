import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { reversalDelay } from '../../src/payments/reversal-delay.js';

/** The reversal's retry wait: seconds while the clerk waits, the long background cap after (docs/payments.md, "Unknown outcome: resolution and reversal"). */
describe('reversalDelay', () => {
  const p = configSchema.parse({}).payments;
  const settings = {
    baseMs: 1_000,
    backgroundCapMs: p.reversalRetryCapMs,
    waitingCapMs: p.reversalWaitingRetryCapMs,
    waitingMs: p.reversalWaitingMs,
    random: () => 0.999,
  };

  it('while the clerk waits no wait exceeds the waiting cap, however many attempts failed', () => {
    expect(p.reversalWaitingRetryCapMs).toBeLessThanOrEqual(10_000);
    for (let attempt = 0; attempt < 40; attempt++)
      expect(reversalDelay(attempt, 30_000, settings)).toBeLessThanOrEqual(p.reversalWaitingRetryCapMs);
    // The 7th attempt drew up to 86 s before (cap 300 s).
    expect(reversalDelay(7, 60_000, settings)).toBeGreaterThan(4_000);
  });

  it('after the waiting time the background cap applies again', () => {
    expect(reversalDelay(7, p.reversalWaitingMs + 1, settings)).toBeGreaterThan(100_000);
    expect(reversalDelay(20, p.reversalWaitingMs + 1, settings)).toBeLessThanOrEqual(p.reversalRetryCapMs);
  });

  it('the clerk is taken to wait until exactly the waiting time: from that moment on the background cap applies', () => {
    expect(reversalDelay(7, p.reversalWaitingMs - 1, settings)).toBeLessThanOrEqual(p.reversalWaitingRetryCapMs);
    expect(reversalDelay(7, p.reversalWaitingMs, settings)).toBeGreaterThan(100_000);
  });

  it('the first retry comes within the base wait, and each later one within twice the one before, up to the cap', () => {
    const at = (attempt: number) => reversalDelay(attempt, p.reversalWaitingMs, settings);
    expect(at(0)).toBe(999);
    expect(at(1)).toBe(1_998);
    expect(at(2)).toBe(3_996);
    expect(reversalDelay(0, p.reversalWaitingMs, { ...settings, random: () => 0 })).toBe(0);
  });

  it('a background cap below the waiting cap wins (tests and small terminals set it low)', () => {
    expect(reversalDelay(10, 0, { ...settings, backgroundCapMs: 200 })).toBeLessThanOrEqual(200);
  });
});
