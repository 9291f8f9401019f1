import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

const fixture = useDemoPlatform();
let t: Terminal;
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Waits (up to 15 s) for the sale's journal row to be reversed. */
async function reversed(id: string): Promise<void> {
  await until(
    `${id} reversed`,
    () => t.journal.get(id)?.state,
    (state) => state === 'reversed',
    { timeoutMs: 15_000, everyMs: 100 },
  );
}

describe('a sale that lands at the platform after it was counted as not done', () => {
  it('is found by the late-landing watch and reversed, so "nothing was charged" stays true', async () => {
    t = await fixture.startTerminal({
      headersTimeoutMs: 800,
      config: { payments: { lookupGraceMs: 300, lateLandingWatchMs: 20_000 } },
    });
    // The platform reads the request, holds it past the client's timeout and the lookup grace, then records it.
    fixture.demo.platform.faults.set('process', { recordAfterMs: 2_500, times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_700, currency: 'EUR' });
    const told = await started.done;
    expect(told).toMatchObject({ state: 'failed' });
    expect(told.message).toContain('nothing was charged');
    await reversed(started.clientTransactionId);
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
  });

  it('with the watch off (0) the late charge stays: the setting is what protects the customer', async () => {
    t = await fixture.startTerminal({
      headersTimeoutMs: 800,
      config: { payments: { lookupGraceMs: 300, lateLandingWatchMs: 0 } },
    });
    fixture.demo.platform.faults.set('process', { recordAfterMs: 2_500, times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_800, currency: 'EUR' });
    expect((await started.done).state).toBe('failed');
    // Past the sale's landing (2.5 s) with time for a watch to act: what is tested is that nothing
    // happens, so there is no state to await.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(t.journal.get(started.clientTransactionId)?.state).toBe('failed');
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(1_800);
  });

  it('is still watched after a restart: recovery resumes the watch for what is left of it', async () => {
    const config = { payments: { lookupGraceMs: 300, lateLandingWatchMs: 20_000 } };
    const dir = tempDir('late-landing-');
    cleanups.push(dir.cleanup);
    const dataDir = join(dir.dir, 'data');
    const first = await fixture.startTerminal({ headersTimeoutMs: 800, config, dataDir });
    fixture.demo.platform.faults.set('process', { recordAfterMs: 2_500, times: 1 });
    const started = await first.service.startSale({ method: 'card', amount: 1_900, currency: 'EUR' });
    expect((await started.done).state).toBe('failed');
    // The agent stops (its watch with it) before the sale lands; a new one starts on the same journal.
    await first.close();
    t = await fixture.startTerminal({ headersTimeoutMs: 800, config, dataDir });
    await t.service.recover();
    await reversed(started.clientTransactionId);
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
  });
});
