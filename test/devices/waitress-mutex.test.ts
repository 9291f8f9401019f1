import { describe, expect, it } from 'vitest';
import { Mutex } from '../../src/devices/mutex.js';
import { Waitress } from '../../src/devices/waitress.js';
import { ManualClock } from './manual-clock.js';

describe('Waitress', () => {
  it('hands a message to the first matching waiter only', async () => {
    const w = new Waitress<{ id: string }>(new ManualClock());
    const a = w.waitFor(
      (m) => m.id === 'x',
      1000,
      () => new Error('timeout a'),
    );
    const b = w.waitFor(
      (m) => m.id === 'x',
      1000,
      () => new Error('timeout b'),
    );
    expect(w.deliver({ id: 'y' })).toBe(false);
    expect(w.deliver({ id: 'x' })).toBe(true);
    expect(await a.promise).toEqual({ id: 'x' });
    expect(w.size).toBe(1);
    b.cancel(new Error('stop'));
    await expect(b.promise).rejects.toThrow('stop');
  });

  it('rejects with the timeout error and forgets the waiter', async () => {
    const clock = new ManualClock();
    const w = new Waitress<string>(clock);
    const a = w.waitFor(
      () => true,
      500,
      () => new Error('no answer'),
    );
    clock.advance(499);
    expect(w.size).toBe(1);
    clock.advance(1);
    await expect(a.promise).rejects.toThrow('no answer');
    expect(w.size).toBe(0);
    expect(clock.count).toBe(0);
    expect(w.deliver('late')).toBe(false);
  });

  it('rejects everyone on rejectAll and clears their clock', async () => {
    const clock = new ManualClock();
    const w = new Waitress<string>(clock);
    const a = w.waitFor(
      () => true,
      500,
      () => new Error('t'),
    );
    const b = w.waitFor(
      () => true,
      500,
      () => new Error('t'),
    );
    w.rejectAll(new Error('gone'));
    await expect(a.promise).rejects.toThrow('gone');
    await expect(b.promise).rejects.toThrow('gone');
    expect(clock.count).toBe(0);
  });
});

describe('Mutex', () => {
  it('runs critical sections one at a time, in order, also after a failure', async () => {
    const m = new Mutex();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = m.runExclusive(async () => {
      order.push('1 start');
      await gate;
      order.push('1 end');
      throw new Error('boom');
    });
    const second = m.runExclusive(async () => {
      order.push('2');
      return 2;
    });
    await Promise.resolve();
    expect(m.locked).toBe(true);
    expect(order).toEqual(['1 start']);
    release();
    await expect(first).rejects.toThrow('boom');
    expect(await second).toBe(2);
    expect(order).toEqual(['1 start', '1 end', '2']);
    expect(m.locked).toBe(false);
  });
});
