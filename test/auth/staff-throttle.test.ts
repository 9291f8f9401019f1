import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignInThrottle, StaffSignIn, type SignInAttempt } from '../../src/auth/index.js';
import { AgentError } from '../../src/core/index.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import { dispatchersOf, grantStats, identityOf, startDemo, type Demo } from '../helpers/demo-platform.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

const STAFF = { username: 'staff1', password: 'demo-staff-password' };
const S = 1_000;

/** The AgentError a call throws or a promise rejects with. */
async function errorOf(p: Promise<unknown> | (() => unknown)): Promise<AgentError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    if (err instanceof AgentError) return err;
    throw err;
  }
  throw new Error('expected an AgentError');
}

/** A monotonic (and wall) clock the test moves by hand. */
function handClock(): { wall: () => number; mono: () => number; advance: (ms: number) => void } {
  let offset = 0;
  return { wall: () => Date.now() + offset, mono: () => 1_000_000 + offset, advance: (ms) => (offset += ms) };
}

/** `n` failed attempts in a row for `user` from `client`. */
function fail(t: SignInThrottle, user: string, client: string | undefined, n: number): void {
  for (let i = 0; i < n; i++) t.begin(user, client).failed();
}

describe('failed sign-in throttle (docs/operations.md, "Staff accounts")', () => {
  it('lets 5 failures of a username through, then makes the next attempt wait 5 s, 10 s, … with the wait in the message', async () => {
    const clock = handClock();
    const t = new SignInThrottle(clock);
    fail(t, 'clerk', undefined, 5);
    const err = await errorOf(() => t.begin('clerk', undefined));
    expect(err.code).toBe('API_SIGN_IN_THROTTLED');
    expect(err.message).toBe('too many failed sign-ins, try again in 5 s');
    expect(err.details).toEqual({ retryAfterSeconds: 5 });
    // The same name typed differently is the same clerk.
    expect((await errorOf(() => t.begin(' CLERK ', undefined))).code).toBe('API_SIGN_IN_THROTTLED');
    clock.advance(4_001);
    expect((await errorOf(() => t.begin('clerk', undefined))).message).toBe(
      'too many failed sign-ins, try again in 1 s',
    );
    clock.advance(999);
    t.begin('clerk', undefined).failed();
    expect((await errorOf(() => t.begin('clerk', undefined))).message).toBe(
      'too many failed sign-ins, try again in 10 s',
    );
    // Another clerk is not affected.
    t.begin('other', undefined).succeeded();
  });

  it('is bounded: no wait exceeds 5 minutes, and attempts refused during a wait neither count nor extend it', async () => {
    const clock = handClock();
    const t = new SignInThrottle(clock);
    fail(t, 'clerk', undefined, 5);
    let longest = 0;
    for (let i = 0; i < 40; i++) {
      const err = await errorOf(() => t.begin('clerk', undefined));
      const wait = (err.details?.['retryAfterSeconds'] as number) * S;
      longest = Math.max(longest, wait);
      // Someone keeps hammering during the wait: refused, and the wait does not grow.
      for (let k = 0; k < 10; k++) {
        clock.advance(wait / 20);
        await errorOf(() => t.begin('clerk', undefined));
      }
      clock.advance(wait / 2);
      t.begin('clerk', undefined).failed();
    }
    expect(longest).toBe(300 * S);
  });

  it('a success clears the count; so do 15 minutes without a failure', async () => {
    const clock = handClock();
    const t = new SignInThrottle(clock);
    fail(t, 'clerk', 'ip', 4);
    t.begin('clerk', 'ip').succeeded();
    fail(t, 'clerk', 'ip', 4);
    t.begin('clerk', 'ip').failed(); // the 5th since the success: now it bites
    await errorOf(() => t.begin('clerk', 'ip'));
    clock.advance(15 * 60 * S);
    fail(t, 'clerk', 'ip', 4);
    expect(() => t.begin('clerk', 'ip').succeeded()).not.toThrow();
  });

  it('counts per client address across usernames (20 free), and another address is not affected', async () => {
    const clock = handClock();
    const t = new SignInThrottle(clock);
    for (let i = 0; i < 20; i++) t.begin(`guess-${i}`, '127.0.0.1').failed();
    const err = await errorOf(() => t.begin('staff1', '127.0.0.1'));
    expect(err.message).toMatch(/^too many failed sign-ins, try again in \d+ s$/);
    t.begin('staff1', '::1').succeeded();
  });

  it('counts an attempt when it begins, so parallel guesses cannot slip past; an attempt ended by something else is taken back', async () => {
    const clock = handClock();
    const t = new SignInThrottle(clock);
    const open: SignInAttempt[] = [];
    for (let i = 0; i < 5; i++) open.push(t.begin('clerk', undefined));
    await errorOf(() => t.begin('clerk', undefined));
    for (const a of open) a.abandoned();
    open.length = 0;
    for (let i = 0; i < 4; i++) t.begin('clerk', undefined).abandoned();
    expect(() => t.begin('clerk', undefined).failed()).not.toThrow();
  });

  it('remembers at most maxEntries names and addresses', async () => {
    const clock = handClock();
    const t = new SignInThrottle(clock, { maxEntries: 3 });
    fail(t, 'clerk', undefined, 5);
    await errorOf(() => t.begin('clerk', undefined));
    for (let i = 0; i < 3; i++) t.begin(`name-${i}`, undefined).failed();
    // The oldest entry is gone: memory stays bounded whatever names are tried.
    expect(() => t.begin('clerk', undefined).failed()).not.toThrow();
  });
});

describe('the throttle in front of the platform password grant and the offline verifier', () => {
  let demo: Demo | undefined;
  let dispatchers: HostDispatchers;
  const tmp = tempDir('staff-throttle-');
  const { log, sink } = testLogger('debug');
  const clock = handClock();
  let identity: ReturnType<typeof identityOf>;
  const signIn = (endpoints: { authUrl: string; deviceAuthUrl: string }): StaffSignIn =>
    new StaffSignIn({
      endpoints,
      dispatchers,
      clientId: 'powered-app',
      thumbprint: identity.thumbprint,
      leewaySeconds: 30,
      dataDir: tmp.dir,
      offlineDays: 7,
      clock,
      log,
    });

  beforeAll(async () => {
    demo = await startDemo();
    identity = identityOf('device');
    dispatchers = dispatchersOf(identity);
  });
  afterAll(async () => {
    await dispatchers?.close();
    await demo?.close();
    tmp.cleanup();
  });

  it('online: after 5 wrong passwords the 6th attempt waits, without asking the platform, even with the right password; a success after the wait resets', async () => {
    const staff = signIn({ authUrl: demo!.apiUrl, deviceAuthUrl: demo!.mtlsUrl });
    for (let i = 0; i < 5; i++)
      expect((await errorOf(staff.signIn(STAFF.username, `wrong-${i}`, '127.0.0.1'))).code).toBe('API_SIGN_IN_FAILED');
    const before = await grantStats(demo!);
    const wrong = await errorOf(staff.signIn(STAFF.username, 'wrong-again', '127.0.0.1'));
    expect(wrong.code).toBe('API_SIGN_IN_THROTTLED');
    expect(wrong.message).toBe('too many failed sign-ins, try again in 5 s');
    expect((await errorOf(staff.signIn(STAFF.username, STAFF.password, '127.0.0.1'))).code).toBe(
      'API_SIGN_IN_THROTTLED',
    );
    expect(await grantStats(demo!)).toEqual(before);
    clock.advance(5 * S);
    await expect(staff.signIn(STAFF.username, STAFF.password, '127.0.0.1')).resolves.toMatchObject({
      username: 'staff1',
      offline: false,
    });
    // Reset: the next wrong password is a plain refusal again.
    expect((await errorOf(staff.signIn(STAFF.username, 'wrong', '127.0.0.1'))).code).toBe('API_SIGN_IN_FAILED');
    await staff.signIn(STAFF.username, STAFF.password, '127.0.0.1');
    expect(sink.text()).not.toContain('wrong-again');
  });

  it('offline: the local verifier is behind the same throttle', async () => {
    // The verifier entry comes from the online sign-in above; nothing listens on port 9.
    const staff = signIn({ authUrl: 'https://127.0.0.1:9', deviceAuthUrl: 'https://127.0.0.1:9' });
    await expect(staff.signIn(STAFF.username, STAFF.password)).resolves.toMatchObject({ offline: true });
    for (let i = 0; i < 5; i++)
      expect((await errorOf(staff.signIn(STAFF.username, 'wrong'))).code).toBe('API_SIGN_IN_FAILED');
    const err = await errorOf(staff.signIn(STAFF.username, STAFF.password));
    expect(err.code).toBe('API_SIGN_IN_THROTTLED');
    expect(err.message).toMatch(/^too many failed sign-ins, try again in [1-5] s$/);
    clock.advance(5 * S);
    await expect(staff.signIn(STAFF.username, STAFF.password)).resolves.toMatchObject({ offline: true });
  });

  it('an unreachable platform with no verifier entry is not a free username oracle: it counts too', async () => {
    const staff = signIn({ authUrl: 'https://127.0.0.1:9', deviceAuthUrl: 'https://127.0.0.1:9' });
    for (let i = 0; i < 5; i++)
      expect((await errorOf(staff.signIn('nobody-here', 'x'))).code).toBe('API_SIGN_IN_FAILED');
    expect((await errorOf(staff.signIn('nobody-here', 'x'))).code).toBe('API_SIGN_IN_THROTTLED');
  });
});
