import type { DeviceIdentity } from './device-identity.js';

export interface CertificateStatus {
  state: 'valid' | 'expiring' | 'expired' | 'not-yet-valid';
  /** Whole days until notAfter (negative once expired). */
  daysLeft: number;
  message: string;
}

const DAY_MS = 86_400_000;

/**
 * Where the device certificate stands at `now`. Expiring = within the largest of
 * `warningDays` (warnings at 30, 7 and 1 days: docs/operations.md, "Certificates and key
 * permissions"); notBefore in the future is a
 * clock fault on the terminal, since the platform issued the certificate in the past.
 */
export function certificateStatus(identity: DeviceIdentity, now: Date, warningDays: number[]): CertificateStatus {
  const remainingMs = identity.notAfter.getTime() - now.getTime();
  const daysLeft = Math.floor(remainingMs / DAY_MS);
  const until = identity.notAfter.toISOString();
  if (now.getTime() < identity.notBefore.getTime()) {
    return {
      state: 'not-yet-valid',
      daysLeft,
      message: `device certificate is not valid before ${identity.notBefore.toISOString()} but the clock says ${now.toISOString()}: check the terminal's clock (NTP)`,
    };
  }
  if (remainingMs <= 0) {
    return {
      state: 'expired',
      daysLeft,
      message: `device certificate expired on ${until}: install a renewed device certificate`,
    };
  }
  const horizon = warningDays.length === 0 ? 0 : Math.max(...warningDays);
  if (remainingMs <= horizon * DAY_MS) {
    const when = daysLeft === 0 ? 'in less than a day' : `in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`;
    return {
      state: 'expiring',
      daysLeft,
      message: `device certificate expires ${when} (${until}): renew it before then`,
    };
  }
  return { state: 'valid', daysLeft, message: `device certificate valid until ${until} (${daysLeft} days left)` };
}
