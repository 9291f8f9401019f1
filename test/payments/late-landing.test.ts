import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = useDemoPlatform();
let t: Terminal;
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Polls the journal until the sale reaches `state` or the time is up. */
async function until(id: string, state: string, ms: number): Promise<string | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const now = t.journal.get(id)?.state;
    if (now === state || Date.now() > end) return now;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a sale that lands at the platform after it was counted as not done', () => {
  it('is found by the late-landing watch and reversed, so "nothing was charged" stays true', async () => {
    t = await fixture.startTerminal({ headersTimeoutMs: 800, config: { payments: { lookupGraceMs: 300, lateLandingWatchMs: 20_000 } } });
    // The platform reads the request, holds it past the client's timeout and the lookup grace, then records it.
    fixture.demo.platform.faults.set('process', { recordAfterMs: 2_500, times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_700, currency: 'EUR' });
    const told = await started.done;
    expect(told).toMatchObject({ state: 'failed' });
    expect(told.message).toContain('nothing was charged');
    expect(await until(started.clientTransactionId, 'reversed', 15_000)).toBe('reversed');
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
  });

  it('with the watch off (0) the late charge stays: the setting is what protects the customer', async () => {
    t = await fixture.startTerminal({ headersTimeoutMs: 800, config: { payments: { lookupGraceMs: 300, lateLandingWatchMs: 0 } } });
    fixture.demo.platform.faults.set('process', { recordAfterMs: 2_500, times: 1 });
    const started = await t.service.startSale({ method: 'card', amount: 1_800, currency: 'EUR' });
    expect((await started.done).state).toBe('failed');
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
    expect(await until(started.clientTransactionId, 'reversed', 15_000)).toBe('reversed');
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
  });
});
