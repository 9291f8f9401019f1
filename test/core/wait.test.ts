import { describe, expect, it } from 'vitest';
import { until, untilTrue, WaitTimeout } from '../helpers/wait.js';

/** The suite's one polling loop (test/helpers/wait.ts): it returns what came, and says what did not. */
describe('until', () => {
  it('returns the first value that holds, reading again until it does', async () => {
    let n = 0;
    await expect(
      until(
        'the third read',
        () => ++n,
        (v) => v >= 3,
        { everyMs: 1 },
      ),
    ).resolves.toBe(3);
  });

  it('gives up after its time, naming what was awaited and the last value seen', async () => {
    const err = await until(
      'a row approved',
      () => ({ state: 'pending' }),
      (v) => v.state === 'approved',
      { timeoutMs: 30, everyMs: 5 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeout);
    expect((err as Error).message).toBe('not within 30 ms: a row approved (last seen: {"state":"pending"})');
  });

  it('a read that throws rejects at once', async () => {
    await expect(
      untilTrue(
        'never',
        () => {
          throw new Error('gone');
        },
        { timeoutMs: 5_000 },
      ),
    ).rejects.toThrow('gone');
  });
});
