import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../../src/events/bus.js';
import type { AgentEvent } from '../../../src/events/types.js';
import { createEventRelay, type EventRelay } from '../../../src/payments/relay/relay.js';
import { nextPollDelay, defaultRelayPolicy, parseExpireTime } from '../../../src/payments/relay/relay-policy.js';
import { AgentError, ErrorCodes } from '../../../src/core/index.js';
import { testLogger } from '../../helpers/log-sink.js';
import { ClockSkewMeter } from '../../../src/auth/index.js';
import { FakeRelayStore, walletRecord } from './fake-relay-store.js';

type Status = () => Record<string, unknown> | Promise<Record<string, unknown>>;

function setup(statusOf: Record<string, Status>) {
  const bus = new EventBus();
  const store = new FakeRelayStore(bus);
  const events: Array<AgentEvent<'transaction.updated'>> = [];
  bus.on('transaction.updated', (e) => events.push(e));
  const calls: Array<{ id: string; at: number }> = [];
  const fetchStatus = vi.fn(async (id: string) => {
    calls.push({ id, at: Date.now() });
    const f = statusOf[id];
    if (!f) throw new AgentError(ErrorCodes.PLATFORM_REJECTED, 'unknown');
    return f();
  });
  const { log, sink } = testLogger();
  const relay = createEventRelay({ store, fetchStatus, log, random: () => 1, timeZone: 'UTC' });
  return { store, bus, events, calls, fetchStatus, relay, sink };
}

describe('event relay', () => {
  let relay: EventRelay | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2025-03-01T10:00:00Z') });
  });
  afterEach(() => {
    relay?.stop();
    relay = undefined;
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it("asks the status call by the tracking's statusId when it has one (a refund or cancel answered pending: its server id)", async () => {
    const s = setup({ 'srv-R1': () => walletRecord('Accepted', ['walletARefundRequest', 'walletARefundResult']) });
    relay = s.relay;
    s.store.add('R1', { statusId: 'srv-R1' });
    relay.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.calls.map((c) => c.id)).toEqual(['srv-R1']);
    expect(s.events.at(-1)?.data).toMatchObject({ clientTransactionId: 'R1', status: 'approved' });
    expect(relay.tracked()).toEqual([]);
  });

  it('puts each platform event on the bus once while polling, then stops at the final status', async () => {
    let record = walletRecord('Initialized', ['walletARequest', 'walletAConsumerScanResult']);
    const s = setup({ T1: () => record });
    relay = s.relay;
    s.store.add('T1');
    relay.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(s.events.map((e) => e.data.platformEvent?.eventType)).toEqual([
      'walletARequest',
      'walletAConsumerScanResult',
    ]);
    record = walletRecord('Accepted', ['walletARequest', 'walletAConsumerScanResult', 'walletAPaymentResult']);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(s.events.map((e) => e.data.platformEvent?.eventType)).toEqual([
      'walletARequest',
      'walletAConsumerScanResult',
      'walletAPaymentResult',
    ]);
    expect(s.events.at(-1)?.data.status).toBe('approved');
    expect(relay.tracked()).toEqual([]);
    const callsAtFinal = s.calls.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.calls.length).toBe(callsAtFinal);
  });

  it('makes at most two status calls per second while the customer pays, and backs off after', async () => {
    const s = setup({ T1: () => walletRecord('Initialized', ['walletARequest']) });
    relay = s.relay;
    s.store.add('T1');
    relay.start();
    const t0 = Date.now();
    await vi.advanceTimersByTimeAsync(60_000);
    const fast = s.calls.filter((c) => c.at - t0 < 60_000);
    for (let second = 0; second < 60; second++) {
      const inSecond = fast.filter((c) => c.at - t0 >= second * 1000 && c.at - t0 < (second + 1) * 1000).length;
      expect(inSecond).toBeLessThanOrEqual(2);
    }
    // A change must be seen within a second: no gap above the fast period.
    for (let i = 1; i < fast.length; i++) expect((fast[i]?.at ?? 0) - (fast[i - 1]?.at ?? 0)).toBeLessThanOrEqual(500);
    const before = s.calls.length;
    await vi.advanceTimersByTimeAsync(120_000);
    const slow = s.calls.slice(before);
    expect(slow.length).toBeGreaterThan(5);
    expect(slow.length).toBeLessThan(25);
    const gaps = slow.slice(1).map((c, i) => c.at - (slow[i]?.at ?? 0));
    expect(Math.max(...gaps)).toBe(defaultRelayPolicy.maxIntervalMs);
  });

  it("at the QR's expiry a still-pending answer is no outcome: the store is told once, and the transaction is followed, fast again, until the platform reports it final", async () => {
    let record = walletRecord('Initialized', ['walletARequest']);
    const s = setup({ T1: () => record });
    relay = s.relay;
    s.store.add('T1', { expireTime: new Date(Date.now() + 90_000).toISOString() });
    relay.start();
    await vi.advanceTimersByTimeAsync(89_000);
    expect(s.store.expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.store.expired).toEqual(['T1']);
    // The status call that found it expired was asked at or after the expiry, not before it.
    expect(s.calls.at(-1)?.at).toBeGreaterThanOrEqual(Date.parse('2025-03-01T10:01:30Z'));
    expect(s.store.markedExpired).toEqual([]);
    expect(s.events.at(-1)?.data).toMatchObject({
      clientTransactionId: 'T1',
      status: 'pending',
      message: 'QR code expired: outcome being checked',
    });
    expect(relay.tracked()).toEqual(['T1']);
    const atExpiry = s.calls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    // Told once; asked again every 500 ms while the clerk waits for the platform's word.
    expect(s.store.expired).toEqual(['T1']);
    expect(s.calls.length - atExpiry).toBeGreaterThanOrEqual(19);
    expect(s.calls.length - atExpiry).toBeLessThanOrEqual(20);
    record = walletRecord('cancelled', ['walletARequest', 'cancelRequest', 'walletACancelResult']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(relay.tracked()).toEqual([]);
    expect(s.events.at(-1)?.data.platformEvent?.eventType).toBe('walletACancelResult');
  });

  it('a payment arriving at the expiry second is adopted, not marked expired', async () => {
    const expiry = Date.now() + 5_000;
    const s = setup({
      T1: () =>
        Date.now() >= expiry
          ? walletRecord('Accepted', ['walletARequest', 'pay'])
          : walletRecord('Initialized', ['walletARequest']),
    });
    relay = s.relay;
    s.store.add('T1', { expireTime: new Date(expiry).toISOString() });
    relay.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(s.store.expired).toEqual([]);
    expect(s.events.at(-1)?.data.status).toBe('approved');
  });

  it("judges the QR expiry on the platform's clock: a terminal 10 minutes ahead does not end a QR the customer can still pay", async () => {
    // The platform's clock as auth measures it (ClockSkewMeter: a token answer's Date header, then the monotonic time since).
    const skew = new ClockSkewMeter(30_000);
    const platformAhead = -600_000;
    skew.record(
      { dateMs: Date.now() + platformAhead, receivedAtMs: Date.now(), receivedMono: performance.now() },
      undefined,
    );
    const platformNow = (): number | undefined => skew.platformNow(performance.now());
    const expiry = Date.now() + platformAhead + 30_000;
    let paid = false;
    const s = setup({
      T1: () =>
        paid ? walletRecord('Accepted', ['walletARequest', 'pay']) : walletRecord('Initialized', ['walletARequest']),
    });
    relay = createEventRelay({
      store: s.store,
      fetchStatus: s.fetchStatus,
      log: testLogger().log,
      random: () => 1,
      platformNow,
      timeZone: 'UTC',
    });
    s.store.add('T1', { expireTime: new Date(expiry).toISOString() });
    relay.start();
    await vi.advanceTimersByTimeAsync(25_000);
    expect(s.store.expired).toEqual([]);
    paid = true;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(s.store.expired).toEqual([]);
    expect(s.events.at(-1)?.data.status).toBe('approved');
  });

  it("on the platform's clock a QR not paid ends once the platform's expiry passed, with a status call asked after it", async () => {
    const platformAhead = -600_000;
    const platformNow = (): number => Date.now() + platformAhead;
    const expiry = platformNow() + 30_000;
    const s = setup({ T1: () => walletRecord('Initialized', ['walletARequest']) });
    relay = createEventRelay({
      store: s.store,
      fetchStatus: s.fetchStatus,
      log: testLogger().log,
      random: () => 1,
      platformNow,
      timeZone: 'UTC',
    });
    s.store.add('T1', { expireTime: new Date(expiry).toISOString() });
    relay.start();
    await vi.advanceTimersByTimeAsync(29_000);
    expect(s.store.expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(s.store.expired).toEqual(['T1']);
    expect((s.calls.at(-1)?.at ?? 0) + platformAhead).toBeGreaterThanOrEqual(expiry);
  });

  it('resumes after a restart without delivering events twice', async () => {
    const record = walletRecord('Initialized', ['walletARequest', 'walletAConsumerScanResult']);
    const first = setup({ T1: () => record });
    first.store.add('T1');
    first.relay.start();
    await vi.advanceTimersByTimeAsync(2_000);
    first.relay.stop();
    expect(first.events).toHaveLength(2);

    // The journal (store) survives the restart; a new relay picks up what is pending.
    const second = setup({
      T1: () => walletRecord('Accepted', ['walletARequest', 'walletAConsumerScanResult', 'paid']),
    });
    relay = second.relay;
    second.store.add('T1', { delivered: first.store.delivered.get('T1') ?? 0 });
    relay.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(second.calls).toHaveLength(1);
    expect(second.events.map((e) => e.data.platformEvent?.eventType)).toEqual(['paid']);
  });

  it('retries a failing status call with growing delays and never crashes', async () => {
    let failures = 4;
    const s = setup({
      T1: () => {
        if (failures-- > 0) throw new AgentError('PLATFORM_TIMEOUT', 'timed out');
        return walletRecord('Accepted', ['walletARequest']);
      },
    });
    relay = s.relay;
    s.store.add('T1');
    relay.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.calls).toHaveLength(5);
    const gaps = s.calls.slice(1).map((c, i) => c.at - (s.calls[i]?.at ?? 0));
    // random() = 1: the full backoff ceiling each time: 1 s, 2 s, 4 s, 8 s.
    expect(gaps).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(s.events.map((e) => e.data.status)).toEqual(['approved']);
    expect(s.sink.records().filter((r) => r.msg === 'status call failed; retrying with backoff')).toHaveLength(4);
  });

  it('follows a transaction the engine starts tracking after start', async () => {
    const s = setup({ T2: () => walletRecord('Accepted', ['walletBRequest']) });
    relay = s.relay;
    relay.start();
    s.store.add('T2');
    s.store.showQr('T2');
    s.store.showQr('T2');
    await vi.advanceTimersByTimeAsync(500);
    expect(s.calls).toHaveLength(1);
    expect(s.events).toHaveLength(1);
  });

  it('stops following a transaction the journal does not know', async () => {
    const s = setup({ T3: () => walletRecord('Initialized', []) });
    relay = s.relay;
    relay.start();
    s.store.add('T3');
    s.store.views.delete('T3');
    s.store.showQr('T3');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.calls).toHaveLength(1);
    expect(relay.tracked()).toEqual([]);
  });

  it('publishes a status change that came without a new platform event', async () => {
    let status = 'Initialized';
    const s = setup({ T1: () => walletRecord(status, ['walletARequest']) });
    relay = s.relay;
    s.store.add('T1');
    relay.start();
    await vi.advanceTimersByTimeAsync(1_000);
    status = 'Expired';
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.events.map((e) => [e.data.platformEvent?.eventType, e.data.status])).toEqual([
      ['walletARequest', 'awaiting_customer'],
      [undefined, 'failed'],
    ]);
  });
});

describe('relay policy', () => {
  it('never schedules faster than the fast period on failures', () => {
    const d = nextPollDelay(
      defaultRelayPolicy,
      { trackedForMs: 0, slowPolls: 0, failures: 1, msToExpiry: undefined, lastCallMs: 0 },
      () => 0,
    );
    expect(d).toBe(defaultRelayPolicy.fastIntervalMs);
  });

  it('counts the period from the start of the previous call', () => {
    expect(
      nextPollDelay(defaultRelayPolicy, {
        trackedForMs: 0,
        slowPolls: 0,
        failures: 0,
        msToExpiry: undefined,
        lastCallMs: 200,
      }),
    ).toBe(300);
    expect(
      nextPollDelay(defaultRelayPolicy, {
        trackedForMs: 0,
        slowPolls: 0,
        failures: 0,
        msToExpiry: undefined,
        lastCallMs: 900,
      }),
    ).toBe(0);
  });

  it('reads expireTime in ISO 8601 and the platform date forms, to the end of the second it names', () => {
    // Milliseconds given: exact. Whole seconds: the platform may have cut a fraction off, so the end of that second.
    expect(parseExpireTime('2025-03-01T10:05:00.000Z', 'UTC')).toBe(Date.parse('2025-03-01T10:05:00Z'));
    expect(parseExpireTime('2025-03-01T10:05:00Z', 'UTC')).toBe(Date.parse('2025-03-01T10:05:01Z'));
    expect(parseExpireTime('03/01/2025 10:05:00', 'UTC')).toBe(Date.parse('2025-03-01T10:05:01Z'));
    expect(parseExpireTime('03/01/2025 10:05:00 PM', 'UTC')).toBe(Date.parse('2025-03-01T22:05:01Z'));
    expect(parseExpireTime('3/1/2025 10:05:00 PM', 'Asia/Singapore')).toBe(Date.parse('2025-03-01T14:05:01Z'));
    expect(parseExpireTime('soon', 'UTC')).toBeUndefined();
    expect(parseExpireTime(undefined, 'UTC')).toBeUndefined();
  });
});

describe("QR expiry in the platform's time zone", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2025-12-15T20:00:00.400Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a 12-hour expireTime west of UTC (12:05:00 PM in Los Angeles = 20:05 UTC) is not taken as UTC: the sale is paid at 20:04, not expired at once', async () => {
    let paid = false;
    const s = setup({
      T1: () =>
        paid ? walletRecord('Accepted', ['walletARequest', 'pay']) : walletRecord('Initialized', ['walletARequest']),
    });
    const relay = createEventRelay({
      store: s.store,
      fetchStatus: s.fetchStatus,
      log: testLogger().log,
      random: () => 1,
      timeZone: 'America/Los_Angeles',
    });
    try {
      s.store.add('T1', { expireTime: '12/15/2025 12:05:00 PM' });
      relay.start();
      await vi.advanceTimersByTimeAsync(4 * 60_000);
      expect(s.store.expired).toEqual([]);
      paid = true;
      await vi.advanceTimersByTimeAsync(20_000);
      expect(s.store.expired).toEqual([]);
      expect(s.events.at(-1)?.data.status).toBe('approved');
    } finally {
      relay.stop();
    }
  });

  it("the relay waits until the end of the expiry second: the platform's 20:05:00.400 is never cut to 20:05:00", async () => {
    const s = setup({ T1: () => walletRecord('Initialized', ['walletARequest']) });
    const relay = createEventRelay({
      store: s.store,
      fetchStatus: s.fetchStatus,
      log: testLogger().log,
      random: () => 1,
      timeZone: 'America/Los_Angeles',
    });
    try {
      s.store.add('T1', { expireTime: '12/15/2025 12:05:00 PM' });
      relay.start();
      await vi.advanceTimersByTimeAsync(Date.parse('2025-12-15T20:05:00.500Z') - Date.now());
      expect(s.store.expired).toEqual([]);
      await vi.advanceTimersByTimeAsync(Date.parse('2025-12-15T20:05:01.000Z') - Date.now());
      expect(s.store.expired).toEqual(['T1']);
      expect(s.calls.at(-1)?.at).toBeGreaterThanOrEqual(Date.parse('2025-12-15T20:05:01Z'));
    } finally {
      relay.stop();
    }
  });
});
