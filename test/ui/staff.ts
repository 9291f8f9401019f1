import { AgentError, ErrorCodes } from '../../src/core/errors.js';
import type { StaffAuthenticator, StaffView } from '../../src/ui/shared/staff-source.js';
import { call } from '../helpers/http-client.js';

/** Clerks of the fake sign-in: `clerk` may do everything, `trainee` only sell, `kassierer` everything in German. */
export const CLERK = { username: 'clerk', password: 'clerk-password', name: 'Casey Clerk' } as const;
export const TRAINEE = { username: 'trainee', password: 'trainee-password', name: 'Tara Trainee' } as const;
/** A clerk whose token says German and Berlin time (the locale and zoneinfo claims). */
export const GERMAN_CLERK = { username: 'kassierer', password: 'kassierer-password', name: 'Kim Kassierer' } as const;
export const ALL_PERMISSIONS = [
  'payment:process',
  'payment:capture',
  'payment:cancel',
  'payment:refund',
  'payment:status',
];

/** A StaffAuthenticator without a platform: two clerks with fixed passwords; every attempt recorded (never the password). */
export class FakeStaff implements StaffAuthenticator {
  readonly attempts: string[] = [];
  async signIn(username: string, password: string): Promise<StaffView> {
    this.attempts.push(username);
    if (username === CLERK.username && password === CLERK.password)
      return { username, name: CLERK.name, permissions: ALL_PERMISSIONS, offline: false };
    if (username === GERMAN_CLERK.username && password === GERMAN_CLERK.password) {
      return {
        username,
        name: GERMAN_CLERK.name,
        permissions: ALL_PERMISSIONS,
        offline: false,
        locale: 'de-DE',
        zoneinfo: 'Europe/Berlin',
        dateTimeFormat: 'DD.MM.YYYY HH:mm:ss Z',
      };
    }
    if (username === TRAINEE.username && password === TRAINEE.password)
      return { username, name: TRAINEE.name, permissions: ['payment:process', 'payment:status'], offline: false };
    throw new AgentError(ErrorCodes.API_SIGN_IN_FAILED, 'wrong username or password');
  }
}

/** Signs in over HTTP as a page would; returns the Cookie header to send after. */
export async function signInCookie(url: string, who: { username: string; password: string }): Promise<string> {
  const r = await call(url, 'POST', '/session', { body: { username: who.username, password: who.password } });
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
  const set = r.headers['set-cookie']?.[0];
  if (set === undefined) throw new Error('no session cookie');
  return set.split(';')[0] ?? '';
}

/** The demo seed's staff users (config/demo-seed.json): staff1 has every permission but refund by web of the terminal's own sales, trainee1 may only sell. */
export const DEMO_STAFF = { username: 'staff1', password: 'demo-staff-password', name: 'Sam Staff' } as const;
export const DEMO_TRAINEE = { username: 'trainee1', password: 'demo-trainee-password', name: 'Tara Trainee' } as const;
/** The demo seed's supervisor: staff1's permissions and payment:refund-by-web, which no other demo clerk has. */
export const DEMO_SUPERVISOR = {
  username: 'supervisor1',
  password: 'demo-supervisor-password',
  name: 'Sky Supervisor',
} as const;
/** The demo seed's German clerk: staff1's permissions, token claims locale de-DE, zoneinfo Europe/Berlin, datetimeformat DD.MM.YYYY HH:mm. */
export const DEMO_GERMAN = { username: 'verkauf1', password: 'demo-verkauf-password', name: 'Vera Verkauf' } as const;
