import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_VERIFIER_FILE, StaffSignIn, staffIdentityOf } from '../../src/auth/index.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import { dispatchersOf, grantStats, identityOf, startDemo, type Demo } from '../helpers/demo-platform.js';
import { AgentError } from '../../src/core/index.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

const STAFF = { username: 'staff1', password: 'demo-staff-password' };
const TRAINEE = { username: 'trainee1', password: 'demo-trainee-password' };
const DAY = 86_400_000;

/** The AgentError a promise rejects with. */
async function errorOf(p: Promise<unknown>): Promise<AgentError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AgentError) return err;
    throw err;
  }
  throw new Error('expected an AgentError');
}

/**
 * Staff sign-in with the platform's password grant (docs/platform-contract.md, "Tokens") and,
 * with the platform stopped, against the local verifier (docs/operations.md, "Staff accounts").
 */
describe('staff sign-in', () => {
  let demo: Demo | undefined;
  let dispatchers: HostDispatchers;
  const tmp = tempDir('staff-sign-in-');
  const { log, sink } = testLogger('debug');
  let wall = Date.now();
  const clock = { wall: () => wall, mono: () => wall };
  let staff: StaffSignIn;

  beforeAll(async () => {
    demo = await startDemo();
    const identity = identityOf('device');
    dispatchers = dispatchersOf(identity);
    staff = new StaffSignIn({
      endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
      dispatchers,
      clientId: 'powered-app',
      thumbprint: identity.thumbprint,
      leewaySeconds: 30,
      dataDir: tmp.dir,
      offlineDays: 7,
      clock,
      log,
    });
  });
  afterAll(async () => {
    await dispatchers?.close();
    await demo?.close();
    tmp.cleanup();
  });

  it('signs the demo staff user in by the password grant and reads name and permissions from the token', async () => {
    const before = (await grantStats(demo!)).granted.password ?? 0;
    const who = await staff.signIn(STAFF.username, STAFF.password);
    // The profile's locale and zone (the demo realm's: en-GB, Europe/Berlin) drive the counter page's language and times.
    expect(who).toMatchObject({
      username: 'staff1',
      name: 'Sam Staff',
      offline: false,
      locale: 'en-GB',
      zoneinfo: 'Europe/Berlin',
      dateTimeFormat: 'YYYY-MM-DDTHH:mm:ssZ',
    });
    expect(who.permissions).toEqual(expect.arrayContaining(['payment:cancel', 'payment:refund', 'payment:capture']));
    expect((await grantStats(demo!)).granted.password).toBe(before + 1);
  });

  it('reads the second demo user without the cancel, refund and capture permissions', async () => {
    const who = await staff.signIn(TRAINEE.username, TRAINEE.password);
    expect(who.name).toBe('Tara Trainee');
    expect(who.permissions).not.toContain('payment:cancel');
    expect(who.permissions).not.toContain('payment:refund');
    expect(who.permissions).not.toContain('payment:capture');
  });

  it("refuses a wrong password, and forgets that clerk's verifier until the next good sign-in", async () => {
    const file = join(tmp.dir, STAFF_VERIFIER_FILE);
    expect(readFileSync(file, 'utf8')).toContain('"staff1"');
    const err = await errorOf(staff.signIn(STAFF.username, 'wrong'));
    expect(err.code).toBe('API_SIGN_IN_FAILED');
    expect(err.message).toBe('wrong username or password');
    expect(readFileSync(file, 'utf8')).not.toContain('"staff1"');
    await staff.signIn(STAFF.username, STAFF.password);
    expect(readFileSync(file, 'utf8')).toContain('"staff1"');
  });

  it('keeps a salted scrypt verifier, 0600, without the password or a token', async () => {
    const file = join(tmp.dir, STAFF_VERIFIER_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(STAFF.password);
    expect(text).not.toContain(TRAINEE.password);
    // A JWT: base64url segments joined by dots. A random base64 salt or hash may contain "eyJ" but never a dot.
    expect(text).not.toMatch(/eyJ[\w-]*\.[\w-]+\./);
    const entry = (JSON.parse(text) as { staff: Record<string, { N: number; r: number; p: number; salt: string }> })
      .staff.staff1;
    expect(entry).toMatchObject({ N: 32_768, r: 8, p: 1 });
    expect(Buffer.from(entry?.salt ?? '', 'base64').length).toBe(16);
    expect(sink.text()).not.toContain(STAFF.password);
  });

  describe('with the platform stopped', () => {
    beforeAll(async () => {
      await demo?.close();
      demo = undefined;
    });

    it('signs in a clerk who signed in online recently, against the local verifier', async () => {
      const who = await staff.signIn(STAFF.username, STAFF.password);
      expect(who).toMatchObject({
        username: 'staff1',
        name: 'Sam Staff',
        offline: true,
        locale: 'en-GB',
        zoneinfo: 'Europe/Berlin',
        dateTimeFormat: 'YYYY-MM-DDTHH:mm:ssZ',
      });
      expect(who.permissions).toContain('payment:cancel');
    });

    it('refuses a wrong password', async () => {
      const err = await errorOf(staff.signIn(STAFF.username, 'wrong'));
      expect(err.code).toBe('API_SIGN_IN_FAILED');
      expect(err.message).toBe('wrong username or password');
    });

    it('refuses a clerk who never signed in here', async () => {
      const err = await errorOf(staff.signIn('someone', 'whatever'));
      expect(err.code).toBe('API_SIGN_IN_FAILED');
      expect(err.message).toMatch(/cannot be reached and someone has not signed in on this terminal within 7 days/);
    });

    it('refuses and removes an entry older than auth.offlineSignInDays', async () => {
      wall += 6 * DAY;
      await expect(staff.signIn(STAFF.username, STAFF.password)).resolves.toMatchObject({ offline: true });
      wall += 1 * DAY + 1;
      const err = await errorOf(staff.signIn(STAFF.username, STAFF.password));
      expect(err.code).toBe('API_SIGN_IN_FAILED');
      expect(readFileSync(join(tmp.dir, STAFF_VERIFIER_FILE), 'utf8')).not.toContain('staff1');
    });

    it('treats a damaged verifier file as empty', async () => {
      writeFileSync(join(tmp.dir, STAFF_VERIFIER_FILE), '{not json', { mode: 0o600 });
      const err = await errorOf(staff.signIn(TRAINEE.username, TRAINEE.password));
      expect(err.code).toBe('API_SIGN_IN_FAILED');
    });
  });
});

describe('staff token profile claims', () => {
  const token = (claims: Record<string, unknown>): string =>
    [{ alg: 'none' }, { exp: 2_000_000_000, ...claims }]
      .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
      .join('.') + '.sig';

  it('reads locale and zoneinfo, the locale in canonical form', () => {
    expect(
      staffIdentityOf(token({ preferred_username: 'k', locale: 'de_de', zoneinfo: 'Europe/Vienna' }), 'k'),
    ).toEqual({
      username: 'k',
      name: 'k',
      permissions: [],
      locale: 'de-DE',
      zoneinfo: 'Europe/Vienna',
    });
  });

  it('leaves out a locale that is no language tag and a zone the runtime does not know', () => {
    expect(staffIdentityOf(token({ locale: 'not a locale!', zoneinfo: 'Mars/Olympus_Mons' }), 'k')).toEqual({
      username: 'k',
      name: 'k',
      permissions: [],
    });
    expect(staffIdentityOf(token({ locale: 7, zoneinfo: ['UTC'] }), 'k')).toEqual({
      username: 'k',
      name: 'k',
      permissions: [],
    });
  });

  it('reads the datetimeformat claim; leaves out one naming no date or time token, one too long, or not a string', () => {
    expect(staffIdentityOf(token({ datetimeformat: ' DD.MM.YYYY HH:mm ' }), 'k')).toEqual({
      username: 'k',
      name: 'k',
      permissions: [],
      dateTimeFormat: 'DD.MM.YYYY HH:mm',
    });
    for (const datetimeformat of ['Z', '', `YYYY${'-'.repeat(61)}`, 42, ['YYYY']]) {
      expect(staffIdentityOf(token({ datetimeformat }), 'k'), String(datetimeformat)).toEqual({
        username: 'k',
        name: 'k',
        permissions: [],
      });
    }
  });
});
