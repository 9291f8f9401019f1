import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TokenManager, type TokenManagerOptions } from '../../src/auth/token-manager.js';
import { ClockSkewMeter } from '../../src/auth/clock-skew.js';
import { AgentError } from '../../src/core/errors.js';
import { systemClock, type Clock } from '../../src/core/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import { testLogger } from '../helpers/log-sink.js';
import { FakeSource, THUMB, deferred, issue } from './fake-tokens.js';

/** A fake Clock on vitest's fake timers: its timers are the faked ones, and both times follow the faked Date.now(). */
const clock: Clock = { ...systemClock(), mono: () => Date.now(), wall: () => Date.now() };

function manager(
  source: FakeSource,
  over: Partial<TokenManagerOptions> = {},
): { m: TokenManager; sink: ReturnType<typeof testLogger>['sink'] } {
  const { log, sink } = testLogger();
  const m = new TokenManager({
    source,
    thumbprint: THUMB,
    refreshRatio: 0.8,
    leewaySeconds: 30,
    // random() = 1: each backoff step is its ceiling, so the schedule is predictable.
    backoff: { baseMs: 1_000, capMs: 60_000, random: () => 0.999999 },
    slowRetryMs: 300_000,
    clock,
    skew: new ClockSkewMeter(30_000),
    log,
    ...over,
  });
  return { m, sink };
}

const network = (): PlatformError =>
  new PlatformError('could not reach platform (ECONNREFUSED)', {
    category: 'network',
    operation: 'token',
    method: 'POST',
    outcomeUnknown: false,
  });
const oauth = (
  code: 'AUTH_INVALID_GRANT' | 'AUTH_INVALID_CLIENT' | undefined,
  status: number,
  errorCode?: string,
): PlatformError =>
  new PlatformError(`platform refused token (${status})`, {
    category: status === 401 ? 'auth' : 'rejected',
    ...(code !== undefined ? { code } : {}),
    ...(errorCode !== undefined ? { errorCode } : {}),
    operation: 'token',
    method: 'POST',
    status,
    outcomeUnknown: false,
  });

let managers: TokenManager[] = [];
beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
});
afterEach(() => {
  for (const m of managers) m.stop();
  managers = [];
  vi.useRealTimers();
});
const make = (
  source: FakeSource,
  over: Partial<TokenManagerOptions> = {},
): { m: TokenManager; sink: ReturnType<typeof testLogger>['sink'] } => {
  const made = manager(source, over);
  managers.push(made.m);
  return made;
};

describe('TokenManager: proactive refresh', () => {
  it('refreshes at 80% of expires_in measured from receipt, with the refresh token it holds', async () => {
    const source = new FakeSource();
    // exp leaves room for the whole-second truncation of Date and iat, so expires_in rules.
    source.grants.push(() =>
      issue({ expiresIn: 100, refreshToken: 'rt-1', expOverrideS: Math.floor(Date.now() / 1000) + 101 }),
    );
    const { m } = make(source);
    await m.start();
    expect(source.calls).toEqual(['grant']);
    await vi.advanceTimersByTimeAsync(79_999);
    expect(source.calls).toEqual(['grant']);
    await vi.advanceTimersByTimeAsync(1);
    expect(source.calls).toEqual(['grant', 'refresh:rt-1']);
    expect(m.status()).toMatchObject({ state: 'valid', hasToken: true, counts: { grants: 1, refreshes: 1 } });
  });

  it('keeps refreshing for as long as it runs, each time with the newest refresh token (rotation)', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 10, refreshToken: 'rt-a' }));
    source.refreshes.push(
      () => issue({ expiresIn: 10, refreshToken: 'rt-b' }),
      () => issue({ expiresIn: 10, refreshToken: 'rt-c' }),
    );
    const { m } = make(source);
    await m.start();
    await vi.advanceTimersByTimeAsync(8_000);
    await vi.advanceTimersByTimeAsync(8_000);
    await vi.advanceTimersByTimeAsync(8_000);
    expect(source.calls).toEqual(['grant', 'refresh:rt-a', 'refresh:rt-b', 'refresh:rt-c']);
  });

  it('allows for the whole-second truncation of Date and iat: a token may die up to 1 s before expires_in says', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 10 }));
    const { m } = make(source);
    await m.start();
    // exp = iat + 10 with iat truncated: the lifetime counted is 9 s, refresh at 7.2 s.
    await vi.advanceTimersByTimeAsync(7_199);
    expect(source.calls.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(source.calls.length).toBe(2);
  });

  it('uses exp when it says less than expires_in', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100, expOverrideS: Math.floor(Date.now() / 1000) + 50 }));
    const { m } = make(source);
    await m.start();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(source.calls.length).toBe(2);
  });

  it('measures the lifetime on the monotonic clock, not the wall clock, when the wall clock jumps', async () => {
    let mono = 0;
    const jumpy: Clock = { ...clock, mono: () => mono };
    const source = new FakeSource();
    source.grants.push(() => {
      const o = issue({ expiresIn: 100 });
      return { ...o, timing: { ...o.timing, receivedMono: mono } };
    });
    const { m } = make(source, { clock: jumpy });
    const token = await (m.start(), m.token());
    // The wall clock jumps a day ahead (NTP fix); the monotonic clock moved 1 s: the token is still good.
    vi.setSystemTime(Date.now() + 86_400_000);
    mono += 1_000;
    expect(await m.token()).toBe(token);
    expect(source.calls).toEqual(['grant']);
  });
});

describe('TokenManager: single flight', () => {
  it('shares one refresh between every concurrent caller', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100, refreshToken: 'rt-1' }));
    const { m } = make(source);
    const first = await (m.start(), m.token());
    const hold = deferred<ReturnType<typeof issue>>();
    source.refreshes.push(() => hold.promise);
    expect(m.invalidate(first)).toBe(true);
    const callers = Array.from({ length: 25 }, () => m.token());
    // A second 401 on the same token does not start another refresh.
    expect(m.invalidate(first)).toBe(false);
    hold.resolve(issue({ expiresIn: 100, refreshToken: 'rt-2' }));
    const tokens = await Promise.all(callers);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(first);
    expect(source.calls).toEqual(['grant', 'refresh:rt-1']);
  });

  it('ignores an invalidation of a token already replaced', async () => {
    const source = new FakeSource();
    const { m } = make(source);
    const old = await (m.start(), m.token());
    await m.refreshNow();
    expect(m.invalidate(old)).toBe(false);
    expect(source.calls.length).toBe(2);
  });
});

describe('TokenManager: refused refresh token and refused client', () => {
  it('drops a refresh token refused with invalid_grant and grants again at once', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ refreshToken: 'rt-revoked' }));
    source.refreshes.push(oauth('AUTH_INVALID_GRANT', 400));
    source.grants.push(() => issue({ refreshToken: 'rt-new' }));
    const { m } = make(source);
    await m.start();
    await m.refreshNow();
    expect(source.calls).toEqual(['grant', 'refresh:rt-revoked', 'grant']);
    expect(m.status()).toMatchObject({ state: 'valid', counts: { regrants: 1 } });
    await m.refreshNow();
    expect(source.calls.at(-1)).toBe('refresh:rt-new');
  });

  it('re-reads the merchant credentials once on invalid_client, then grants with them', async () => {
    const source = new FakeSource();
    source.grants.push(oauth('AUTH_INVALID_CLIENT', 401));
    const { m } = make(source);
    await m.start();
    expect(source.calls).toEqual(['grant', 'reload', 'grant']);
    expect(m.status()).toMatchObject({ state: 'valid', counts: { credentialReloads: 1 } });
  });

  it('turns a client still refused after re-reading into a configuration fault with slow retries and a clear status', async () => {
    const source = new FakeSource();
    source.grants.push(oauth('AUTH_INVALID_CLIENT', 401), oauth('AUTH_INVALID_CLIENT', 401));
    const { m } = make(source);
    await expect(m.start()).rejects.toMatchObject({ code: 'AUTH_INVALID_CLIENT' });
    expect(source.calls).toEqual(['grant', 'reload', 'grant']);
    const st = m.status();
    expect(st).toMatchObject({ state: 'config_fault', hasToken: false, lastError: { code: 'AUTH_INVALID_CLIENT' } });
    expect(Date.parse(st.nextRetryAt as string) - Date.now()).toBe(300_000);
    // Callers fail at once, without asking the platform.
    await expect(m.token()).rejects.toMatchObject({ code: 'AUTH_INVALID_CLIENT' });
    expect(source.calls.length).toBe(3);
    await vi.advanceTimersByTimeAsync(299_999);
    expect(source.calls.length).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    // The slow retry re-reads the credentials again (the secret may have been fixed meanwhile).
    expect(source.calls.slice(3)).toEqual(['grant']);
    expect(m.status().state).toBe('valid');
  });

  it('keeps using a still valid token when its refresh meets a renewed secret (spec: issued tokens stay valid)', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100, refreshToken: 'rt-1' }));
    source.refreshes.push(oauth('AUTH_INVALID_CLIENT', 401, 'invalid_client'));
    source.grants.push(oauth('AUTH_INVALID_CLIENT', 401, 'invalid_client'));
    const { m } = make(source);
    const token = await (m.start(), m.token());
    await vi.advanceTimersByTimeAsync(80_000);
    // Refused refresh: the credentials are read again and the client granted anew, which is refused too.
    expect(source.calls).toEqual(['grant', 'refresh:rt-1', 'reload', 'grant']);
    expect(m.status()).toMatchObject({
      state: 'config_fault',
      hasToken: true,
      counts: { credentialReloads: 1, regrants: 1 },
    });
    expect(await m.token()).toBe(token);
  });

  it.each([
    ['unsupported_grant_type', 400],
    ['invalid_request', 400],
    ['unauthorized_client', 400],
    ['invalid_scope', 400],
    [undefined, 404],
  ])('falls back to a new grant at once when a refresh is refused with %s (%i)', async (errorCode, status) => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100, refreshToken: 'rt-1' }));
    source.refreshes.push(oauth(undefined, status, errorCode));
    source.grants.push(() => issue({ expiresIn: 100, refreshToken: 'rt-2' }));
    const { m } = make(source);
    await m.start();
    await vi.advanceTimersByTimeAsync(80_000);
    expect(source.calls.filter((c) => c !== 'reload')).toEqual(['grant', 'refresh:rt-1', 'grant']);
    expect(m.status()).toMatchObject({ state: 'valid', hasToken: true, counts: { regrants: 1 } });
    await m.refreshNow();
    expect(source.calls.at(-1)).toBe('refresh:rt-2');
  });

  it('retries a refresh that failed transiently instead of granting again', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100, refreshToken: 'rt-1' }));
    source.refreshes.push(oauth(undefined, 429), network());
    const { m } = make(source);
    await m.start();
    await vi.advanceTimersByTimeAsync(80_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(source.calls).toEqual(['grant', 'refresh:rt-1', 'refresh:rt-1', 'refresh:rt-1']);
    expect(m.status()).toMatchObject({ state: 'valid', counts: { regrants: 0 } });
  });

  it('grants instead of refreshing when the source cannot refresh this token (no user domain known)', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100, refreshToken: 'rt-1' }));
    source.refresh = (rt: string) => {
      source.calls.push(`refresh:${rt}`);
      return undefined as unknown as Promise<never>;
    };
    const { m } = make(source);
    await m.start();
    await m.refreshNow();
    expect(source.calls).toEqual(['grant', 'refresh:rt-1', 'grant']);
  });
});

describe('TokenManager: transient failures', () => {
  it('retries with exponential backoff and full jitter, up to the cap', async () => {
    const source = new FakeSource();
    for (let i = 0; i < 8; i++) source.grants.push(network());
    const { m } = make(source);
    const ready = m.start();
    const times: number[] = [];
    const t0 = Date.now();
    const seen = (): void => {
      while (times.length < source.calls.length) times.push(Date.now() - t0);
    };
    for (let i = 0; i < 3_000 && source.calls.length < 9; i++) {
      await vi.advanceTimersByTimeAsync(100);
      seen();
    }
    await ready;
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // random() just below 1: ~1 s, 2 s, 4 s, 8 s, 16 s, 32 s, then capped at 60 s.
    expect(gaps.map((g) => Math.round(g / 1000))).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
    expect(m.status().state).toBe('valid');
  });

  it('honours Retry-After from the platform', async () => {
    const source = new FakeSource();
    source.grants.push(
      new PlatformError('platform refused token (503)', {
        category: 'server',
        operation: 'token',
        method: 'POST',
        status: 503,
        outcomeUnknown: false,
        retryAfterMs: 30_000,
      }),
    );
    const { m } = make(source);
    const ready = m.start();
    await vi.advanceTimersByTimeAsync(29_900);
    expect(source.calls).toEqual(['grant']);
    expect(m.status()).toMatchObject({ state: 'retrying', lastError: { code: 'PLATFORM_SERVER' } });
    await vi.advanceTimersByTimeAsync(100);
    await ready;
    expect(source.calls).toEqual(['grant', 'grant']);
  });

  it('answers callers with the last error while backing off, and lets one try again after the first backoff step', async () => {
    const source = new FakeSource();
    source.grants.push(network(), network());
    const { m } = make(source, { backoff: { baseMs: 1_000, capMs: 60_000, random: () => 0.99 } });
    void m.start().catch(() => {});
    await vi.advanceTimersByTimeAsync(0);
    await expect(m.token()).rejects.toMatchObject({ code: 'PLATFORM_NETWORK' });
    expect(source.calls.length).toBe(1);
    vi.advanceTimersByTime(0);
    vi.setSystemTime(Date.now() + 1_000);
    // The backoff timer has not fired yet (fake time moved without running timers); a caller may try.
    await expect(m.token()).rejects.toMatchObject({ code: 'PLATFORM_NETWORK' });
    expect(source.calls.length).toBe(2);
  });

  it('serves the held token while a refresh keeps failing, until it runs out', async () => {
    const source = new FakeSource();
    source.grants.push(() => issue({ expiresIn: 100 }));
    for (let i = 0; i < 50; i++) source.refreshes.push(network());
    const { m } = make(source, { backoff: { baseMs: 1_000, capMs: 4_000, random: () => 0.999 } });
    const token = await (m.start(), m.token());
    await vi.advanceTimersByTimeAsync(90_000);
    expect(m.status()).toMatchObject({ state: 'retrying', hasToken: true });
    expect(await m.token()).toBe(token);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(m.status().hasToken).toBe(false);
    await expect(m.token()).rejects.toMatchObject({ code: 'PLATFORM_NETWORK' });
  });
});

describe('TokenManager: claim checks', () => {
  it('refuses a token bound to another certificate and reports binding_mismatch', async () => {
    const source = new FakeSource();
    source.issueOptions = { thumbprint: 'someone-elses-thumbprint' };
    const { m } = make(source);
    await expect(m.start()).rejects.toMatchObject({ code: 'AUTH_BINDING_MISMATCH' });
    expect(m.status()).toMatchObject({
      state: 'binding_mismatch',
      hasToken: false,
      lastError: { code: 'AUTH_BINDING_MISMATCH' },
    });
    await expect(m.token()).rejects.toMatchObject({ code: 'AUTH_BINDING_MISMATCH' });
  });

  it('accepts a token without cnf (not certificate-bound) and says so in its status', async () => {
    const source = new FakeSource();
    source.issueOptions = { thumbprint: null };
    const { m } = make(source);
    await m.start();
    expect(m.status()).toMatchObject({ state: 'valid', hasToken: true, bound: false });
  });

  it('refuses a token issued to another client', async () => {
    const source = new FakeSource();
    source.issueOptions = { clientId: 'terminal-app-1002' };
    const { m } = make(source);
    await expect(m.start()).rejects.toMatchObject({ code: 'AUTH_TOKEN_INVALID' });
    expect(m.status().state).toBe('token_invalid');
  });

  it('accepts a token from a platform whose clock is far off, and reports the skew', async () => {
    const source = new FakeSource();
    source.issueOptions = { platformOffsetMs: 3_600_000 };
    const skew = new ClockSkewMeter(30_000);
    const { m } = make(source, { skew });
    await m.start();
    expect(skew.current()).toMatchObject({ exceedsLeeway: true });
    expect(Math.abs((skew.current()?.dateHeaderMs ?? 0) - 3_600_000)).toBeLessThanOrEqual(1_000);
    expect(Math.abs((skew.current()?.iatMs ?? 0) - 3_600_000)).toBeLessThanOrEqual(1_000);
  });
});

describe('TokenManager: lifecycle', () => {
  it('stop() drops the token, cancels its timers and refuses callers', async () => {
    const source = new FakeSource();
    const { m } = make(source);
    await m.start();
    expect(vi.getTimerCount()).toBe(1);
    m.stop();
    expect(vi.getTimerCount()).toBe(0);
    await expect(m.token()).rejects.toBeInstanceOf(AgentError);
    await expect(m.token()).rejects.toMatchObject({ code: 'AUTH_STOPPED' });
    expect(m.status()).toMatchObject({ state: 'stopped', hasToken: false });
  });

  it('never logs a token', async () => {
    const source = new FakeSource();
    const { m, sink } = make(source);
    const token = await (m.start(), m.token());
    await m.refreshNow();
    expect(sink.lines.length).toBeGreaterThan(0);
    expect(sink.text()).not.toContain(token.split('.')[1]);
    expect(sink.text()).not.toContain('refresh-');
  });
});
