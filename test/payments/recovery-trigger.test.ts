import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/bus.js';
import { recoverAfterFirstToken } from '../../src/payments/recovery-trigger.js';

describe('when start-up recovery runs', () => {
  it('runs once right after the first token at start', async () => {
    const bus = new EventBus();
    let runs = 0;
    const r = recoverAfterFirstToken({
      bus,
      firstToken: async () => undefined,
      onFirstTokenFailed: () => undefined,
      recover: async () => void runs++,
    });
    await r.done;
    expect(runs).toBe(1);
    bus.publish('auth.status', { state: 'valid', clientId: 'c' });
    expect(runs).toBe(1);
  });

  it('waits for the first later grant when the one at start failed for good, and runs once then', async () => {
    const bus = new EventBus();
    let runs = 0;
    const failures: unknown[] = [];
    const r = recoverAfterFirstToken({
      bus,
      firstToken: async () => {
        throw new Error('certificate refused');
      },
      onFirstTokenFailed: (err) => failures.push(err),
      recover: async () => void runs++,
    });
    await r.done;
    expect(failures).toHaveLength(1);
    expect(runs).toBe(0);
    bus.publish('auth.status', { state: 'error', clientId: 'c', reason: 'still refused' });
    expect(runs).toBe(0);
    bus.publish('auth.status', { state: 'valid', clientId: 'c' });
    bus.publish('auth.status', { state: 'valid', clientId: 'c' });
    expect(runs).toBe(1);
  });

  it('stops waiting when the agent stops', async () => {
    const bus = new EventBus();
    let runs = 0;
    const r = recoverAfterFirstToken({
      bus,
      firstToken: () => Promise.reject(new Error('no')),
      onFirstTokenFailed: () => undefined,
      recover: async () => void runs++,
    });
    await r.done;
    r.stop();
    bus.publish('auth.status', { state: 'valid', clientId: 'c' });
    expect(runs).toBe(0);
  });
});
