import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/core/index.js';
import { createEventRelay, parseExpireTime, type EventRelay } from '../../src/payments/relay/index.js';
import type { AgentEvent } from '../../src/events/types.js';
import { STRICT_TIME_ZONE } from '../../src/sim/platform/profile.js';
import { STRICT_REPORT_LAG_MS } from '../../src/sim/platform/payments/process-wallet.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useDemoPlatform, type Terminal, type TerminalOptions } from '../helpers/payment-terminal.js';
import { untilTrue } from '../helpers/wait.js';

/*
 * A consumer-scan QR whose expireTime passes while the platform still says `Initialized`
 * (docs/payments.md, "Wallet QR, consumer scan", expiry), against the strict demo
 * platform: it writes expireTime in the 12-hour form in Los Angeles, its wallet provider
 * reports outcomes STRICT_REPORT_LAG_MS after the expiry, and amounts ending in 61 / 62 are
 * paid by the consumer a second after the expiry, the cancel then voiding the payment (61)
 * or refused by the provider (62). The terminal's and the platform's clocks are moved
 * together (`jump`), so the tests never wait for a QR's five minutes.
 */
const fixture = useDemoPlatform();
let relay: EventRelay | undefined;
let offset = 0;
const wall = (): number => Date.now() + offset;

function jump(ms: number): void {
  offset += ms;
  fixture.demo.platform.faults.clockOffsetMs = offset;
}

beforeEach(() => {
  offset = 0;
  fixture.demo.platform.context.profile.set('strict');
});
afterEach(() => {
  relay?.stop();
  relay = undefined;
  fixture.demo.platform.context.profile.set(testSimProfile());
});

async function terminal(opts: TerminalOptions = {}): Promise<Terminal> {
  return fixture.startTerminal({ ...opts, now: wall, config: { platform: { timeZone: STRICT_TIME_ZONE } } });
}

function startRelay(t: Terminal): EventRelay {
  const r = createEventRelay({
    store: t.service,
    fetchStatus: (id, merchantId) => t.platform.status(id, merchantId !== undefined ? { merchantId } : {}),
    log: fixture.demo.log,
    clock: { ...systemClock(), wall },
    policy: { fastIntervalMs: 20 },
    timeZone: STRICT_TIME_ZONE,
  });
  r.start();
  relay = r;
  return r;
}

/** A walletA consumer-scan sale with its QR shown; the clocks then jump to just past the QR's expiry as the terminal reads it. */
async function saleAtExpiry(t: Terminal, amount: number): Promise<{ id: string; done: Promise<unknown> }> {
  const started = await t.service.startSale({ method: 'walletA', scenario: 'ConsumerScan', amount, currency: 'EUR' });
  await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0, { timeoutMs: 15_000 });
  const waiting = await t.service.get(started.clientTransactionId);
  const expiry = parseExpireTime(waiting.qr?.expireTime, STRICT_TIME_ZONE);
  if (expiry === undefined) throw new Error(`unreadable expireTime ${String(waiting.qr?.expireTime)}`);
  jump(expiry - wall() + 5);
  return { id: started.clientTransactionId, done: started.done };
}

function saleUpdates(t: Terminal, id: string): Array<AgentEvent<'transaction.updated'>['data']> {
  return t.events
    .filter((e): e is AgentEvent<'transaction.updated'> => e.type === 'transaction.updated')
    .map((e) => e.data)
    .filter((d) => d.clientTransactionId === id);
}

/** "Nothing was charged" is said only with a final state the platform reported, never while the outcome is checked. */
function nothingChargedOnlyOnThePlatformsWord(t: Terminal, id: string, opts: { pendingBefore?: boolean } = {}): void {
  const updates = saleUpdates(t, id);
  // `pendingBefore`: a terminal started on a journal whose sale was pending already may publish nothing until the final word.
  const expired = opts.pendingBefore === true ? 0 : updates.findIndex((d) => d.status === 'pending');
  expect(expired).toBeGreaterThanOrEqual(0);
  for (const d of updates) {
    if (/nothing (was|is) charged/.test(d.message ?? ''))
      expect(['reversed', 'cancelled', 'failed']).toContain(d.status);
  }
  // Nothing before the platform's final word ended the sale: every update between the expiry and the end is `pending`.
  const firstFinal = updates.findIndex((d, i) => i >= expired && d.status !== 'pending');
  for (const d of updates.slice(expired, firstFinal === -1 ? undefined : firstFinal)) expect(d.status).toBe('pending');
}

function cancelsAtThePlatform(id: string): Array<Record<string, unknown>> {
  const events = fixture.demo.platform.payments.transaction(id)?.events ?? [];
  return events.filter((e) => e.eventType === 'cancelRequest');
}

describe('QR expiry: the platform decides', () => {
  it("paid in the QR's last second and reported after the expiry, the cancel voids it: the sale ends reversed on the platform's word, nothing charged at the platform", async () => {
    const t = await terminal();
    startRelay(t);
    const { id, done } = await saleAtExpiry(t, 1_561);
    const view = (await done) as { state: string; message?: string };
    expect(view).toMatchObject({
      state: 'reversed',
      message: 'the QR code expired: the platform cancelled the payment, nothing was charged',
    });
    expect(cancelsAtThePlatform(id)).toMatchObject([
      { cancelReason: 'Technical', cancelAmount: { amount: 1_561, currency: 'EUR' } },
    ]);
    // The consumer's late payment reaches the platform afterwards: voided, no money moved.
    jump(STRICT_REPORT_LAG_MS + 1_000);
    expect(fixture.demo.platform.payments.transaction(id)?.transactionStatus).toBe('cancelled');
    expect(fixture.demo.platform.payments.netCharged(id)).toBe(0);
    nothingChargedOnlyOnThePlatformsWord(t, id);
    expect(t.devices.display.texts.at(-1)).toEqual(['15.61 EUR', 'Not approved']);
  });

  it('paid in the QR\'s last second and reported after the expiry, the cancel refused: the sale follows the platform to Accepted and is approved, never "nothing was charged"', async () => {
    const t = await terminal();
    startRelay(t);
    const { id, done } = await saleAtExpiry(t, 1_562);
    // The cancel went out and was refused (the consumer is paying): still being checked.
    await untilTrue(
      `a failed cancel of ${id}`,
      () => t.journal.related(id).some((r) => r.kind === 'cancel' && r.state === 'failed'),
      { timeoutMs: 15_000 },
    );
    expect(await t.service.get(id)).toMatchObject({
      state: 'pending',
      message: /outcome being checked, do not take the payment again/,
    });
    jump(STRICT_REPORT_LAG_MS);
    const view = (await done) as { state: string; message?: string };
    expect(view).toMatchObject({
      state: 'approved',
      platformStatus: 'Accepted',
      message: 'approved: 15.62 EUR (the customer paid as the QR code expired; the platform kept the payment)',
    });
    expect(fixture.demo.platform.payments.netCharged(id)).toBe(1_562);
    expect(saleUpdates(t, id).filter((d) => /nothing (was|is) charged/.test(d.message ?? ''))).toEqual([]);
    expect(t.devices.display.texts.at(-1)).toEqual(['15.62 EUR', 'Approved']);
  });

  it('expired with no payment: the cancel is sent and the sale stays "being checked" until the platform answered it', async () => {
    const t = await terminal();
    startRelay(t);
    // The cancel is slow to answer: meanwhile the terminal has no outcome to tell.
    fixture.demo.platform.faults.set('cancel', { latencyMs: 600 });
    const { id, done } = await saleAtExpiry(t, 1_500);
    await untilTrue(`an update of ${id} saying pending`, () => saleUpdates(t, id).some((d) => d.status === 'pending'), {
      timeoutMs: 15_000,
    });
    const checking = await t.service.get(id);
    expect(checking).toMatchObject({
      state: 'pending',
      message:
        /^the QR code expired before the platform reported a payment: the platform is asked to cancel it; outcome being checked/,
    });
    expect(checking.qr).toBeUndefined();
    expect(t.devices.display.texts.at(-1)).toEqual(['15.00 EUR', 'QR code expired: checking']);
    // Aborting now sends nothing more: the cancel is asked for already.
    expect((await t.service.abortSale(id)).state).toBe('pending');
    const view = (await done) as { state: string; message?: string };
    expect(view).toMatchObject({
      state: 'reversed',
      message: 'the QR code expired: the platform cancelled the payment, nothing was charged',
    });
    expect(cancelsAtThePlatform(id)).toHaveLength(1);
    expect(fixture.demo.platform.payments.netCharged(id)).toBe(0);
    nothingChargedOnlyOnThePlatformsWord(t, id);
  });

  it("a restart while the expired QR's cancel cannot reach the platform: the next start resumes it and the sale ends on the platform's word", async () => {
    const tmp = tempDir('qr-expiry-');
    onTestFinished(() => tmp.cleanup());
    const dataDir = join(tmp.dir, 'data');
    const first = await terminal({ dataDir });
    startRelay(first);
    // Every cancel is answered 503 (the outcome unknown, looked up, not there: sent again).
    fixture.demo.platform.faults.set('cancel', { status: 503 });
    const { id } = await saleAtExpiry(first, 1_500);
    await untilTrue(
      `a failed cancel of ${id}`,
      () => first.journal.related(id).filter((r) => r.kind === 'cancel' && r.state === 'failed').length >= 1,
      { timeoutMs: 15_000 },
    );
    relay?.stop();
    relay = undefined;
    await first.close();
    fixture.demo.platform.faults.clear('cancel');
    expect(cancelsAtThePlatform(id)).toEqual([]);

    const second = await terminal({ dataDir });
    expect(second.service.row(id)).toMatchObject({
      state: 'pending',
      message: expect.stringMatching(/outcome being checked/),
    });
    await second.service.recover();
    startRelay(second);
    await untilTrue(`${id} settled after the restart`, () => second.service.row(id)?.state !== 'pending', {
      timeoutMs: 15_000,
    });
    const row = second.service.row(id);
    expect(row).toMatchObject({
      state: 'reversed',
      message: 'the QR code expired: the platform cancelled the payment, nothing was charged',
    });
    expect(cancelsAtThePlatform(id)).toHaveLength(1);
    expect(fixture.demo.platform.payments.netCharged(id)).toBe(0);
    nothingChargedOnlyOnThePlatformsWord(first, id);
    nothingChargedOnlyOnThePlatformsWord(second, id, { pendingBefore: true });
  });
});
