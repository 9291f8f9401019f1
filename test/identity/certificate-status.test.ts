import { describe, it, expect } from 'vitest';
import { certificateStatus, type DeviceIdentity } from '../../src/identity/index.js';

const DAY = 86_400_000;
const notBefore = new Date('2030-01-01T00:00:00Z');
const notAfter = new Date('2031-01-01T00:00:00Z');
const identity = { notBefore, notAfter } as DeviceIdentity;
const at = (ms: number): Date => new Date(ms);
const WARN = [30, 7, 1];

describe('certificateStatus', () => {
  it('is valid with more than the largest warning period left', () => {
    const s = certificateStatus(identity, at(notAfter.getTime() - 31 * DAY), WARN);
    expect(s).toMatchObject({ state: 'valid', daysLeft: 31 });
  });

  it('is expiring from exactly 30 days before notAfter, whatever the order of warning days', () => {
    expect(certificateStatus(identity, at(notAfter.getTime() - 30 * DAY - 1), WARN).state).toBe('valid');
    const s = certificateStatus(identity, at(notAfter.getTime() - 30 * DAY), [1, 30, 7]);
    expect(s).toMatchObject({ state: 'expiring', daysLeft: 30 });
    expect(s.message).toContain('30 days');
    expect(certificateStatus(identity, at(notAfter.getTime() + 5 - 6 * DAY), WARN)).toMatchObject({
      state: 'expiring',
      daysLeft: 5,
    });
    expect(certificateStatus(identity, at(notAfter.getTime() - 1000), WARN)).toMatchObject({
      state: 'expiring',
      daysLeft: 0,
    });
  });

  it('is expired at notAfter, with negative days left later', () => {
    expect(certificateStatus(identity, notAfter, WARN).state).toBe('expired');
    const s = certificateStatus(identity, at(notAfter.getTime() + 3 * DAY), WARN);
    expect(s).toMatchObject({ state: 'expired', daysLeft: -3 });
    expect(s.message).toContain('expired');
  });

  it('reports a notBefore in the future as a clock fault', () => {
    const s = certificateStatus(identity, at(notBefore.getTime() - 1), WARN);
    expect(s.state).toBe('not-yet-valid');
    expect(s.message).toContain("check the terminal's clock");
  });

  it('never warns without warning days', () => {
    expect(certificateStatus(identity, at(notAfter.getTime() - DAY), []).state).toBe('valid');
  });
});
