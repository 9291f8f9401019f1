import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/index.js';
import { PlatformWatch, type CallOptions } from '../../src/platform/index.js';
import { ManualClock } from '../devices/manual-clock.js';
import { testLogger } from '../helpers/log-sink.js';

/** A probe answering what the test says, telling the watch as the PlatformClient does. */
class FakeProbe {
  up = true;
  asked = 0;
  constructor(private readonly watch: () => PlatformWatch) {}
  isAvailable(_opts?: CallOptions): Promise<boolean> {
    this.asked++;
    if (this.up) this.watch().answered();
    else this.watch().unreachable('the platform could not be reached');
    return Promise.resolve(this.up);
  }
}

function rig(): {
  clock: ManualClock;
  watch: PlatformWatch;
  probe: FakeProbe;
  published: boolean[];
  settle: (ms: number) => Promise<void>;
} {
  const clock = new ManualClock();
  const bus = new EventBus();
  const published: boolean[] = [];
  bus.on('platform.status', (e) => published.push(e.data.online));
  const watch = new PlatformWatch({
    bus,
    log: testLogger().log,
    clock,
    intervalMs: 5_000,
    backoff: { baseMs: 1_000, capMs: 8_000, random: () => 1 },
  });
  const probe = new FakeProbe(() => watch);
  const settle = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 100) {
      clock.advance(100);
      await new Promise((r) => setImmediate(r));
    }
  };
  return { clock, watch, probe, published, settle };
}

describe('PlatformWatch', () => {
  it('a transport failure marks the platform offline at once, any answer online, each change published once', () => {
    const { watch, published } = rig();
    expect(watch.view()).toMatchObject({ online: false, state: 'unknown' });
    watch.answered();
    watch.answered();
    watch.unreachable('the platform did not answer in time');
    expect(watch.view()).toMatchObject({
      online: false,
      state: 'offline',
      reason: 'the platform did not answer in time',
    });
    watch.unreachable('the platform could not be reached');
    watch.answered();
    expect(watch.view()).toEqual({ online: true, state: 'online', since: expect.any(String) });
    expect(published).toEqual([true, false, true]);
  });

  it('a call whose answer was lost (it may have arrived) is checked with isAvailable before the platform is called offline', async () => {
    const { watch, probe, published, settle } = rig();
    watch.start(probe);
    await watch.checkNow();
    const before = probe.asked;
    // One lost answer while the platform answers its check: no offline in between (the page's badge never flashes red).
    watch.unreachable('the connection to the platform broke', { answerLost: true });
    await settle(100);
    expect(probe.asked).toBe(before + 1);
    expect(watch.online).toBe(true);
    expect(published).toEqual([true]);
    // The check fails too: offline, from the check's own report.
    probe.up = false;
    watch.unreachable('the connection to the platform broke', { answerLost: true });
    await settle(100);
    expect(watch.view()).toMatchObject({ state: 'offline', reason: 'the platform could not be reached' });
    expect(published).toEqual([true, false]);
    // A failure that proves the platform out of reach (never reached it) is offline at once, as before.
    probe.up = true;
    await watch.checkNow();
    watch.unreachable('the platform could not be reached');
    expect(watch.state).toBe('offline');
    watch.stop();
  });

  it('while idle and online it asks isAvailable every interval and sees an outage within one interval', async () => {
    const { watch, probe, published, settle } = rig();
    watch.start(probe);
    await watch.checkNow();
    expect(watch.online).toBe(true);
    const before = probe.asked;
    await settle(5_000);
    expect(probe.asked).toBe(before + 1);
    probe.up = false;
    await settle(5_000);
    expect(watch.state).toBe('offline');
    expect(published).toEqual([true, false]);
    watch.stop();
  });

  it('does not ask while calls keep answering (the platform is known to be there)', async () => {
    const { watch, probe, settle } = rig();
    watch.start(probe);
    await watch.checkNow();
    const before = probe.asked;
    for (let i = 0; i < 10; i++) {
      await settle(2_000);
      watch.answered();
    }
    expect(probe.asked).toBe(before);
    watch.stop();
  });

  it('while offline it asks with backoff (growing to the cap) and turns online when the platform answers', async () => {
    const { watch, probe, settle } = rig();
    probe.up = false;
    watch.start(probe);
    await watch.checkNow();
    expect(watch.state).toBe('offline');
    const asked: number[] = [];
    for (let i = 0; i < 8; i++) {
      await settle(5_000);
      asked.push(probe.asked);
    }
    const perWindow = asked.map((n, i) => n - (i === 0 ? 1 : asked[i - 1]!));
    // Early windows hold several checks (1 s, 2 s, 4 s), later ones at most one (8 s cap).
    expect(perWindow[0]).toBeGreaterThan(1);
    expect(Math.max(...perWindow.slice(4))).toBeLessThanOrEqual(1);
    probe.up = true;
    await settle(9_000);
    expect(watch.online).toBe(true);
    watch.stop();
  });

  it('stops asking after stop()', async () => {
    const { watch, probe, settle } = rig();
    watch.start(probe);
    await watch.checkNow();
    watch.stop();
    const before = probe.asked;
    await settle(30_000);
    expect(probe.asked).toBe(before);
  });
});
