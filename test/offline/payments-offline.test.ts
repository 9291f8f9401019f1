import { afterEach, describe, expect, it } from 'vitest';
import type { Offline } from '../../src/offline/index.js';
import { createOffline } from '../../src/offline/index.js';
import {
  JournalWriter,
  offlineSaleReports,
  type OfflineHook,
  type PaymentsPlatform,
} from '../../src/payments/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import { visaCard } from '../helpers/fake-peripherals.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { ENCRYPTED } from '../helpers/offline-sales.js';
import { testSimProfile } from '../helpers/demo-platform.js';

/** An immediate-capture merchant's sale: `Captured`, or `Accepted` with the capture event under the strict profile. */
const CAPTURED_STATUS = testSimProfile() === 'strict' ? 'Accepted' : 'Captured';

/**
 * PaymentService and the offline component together, as the agent wires them: a card
 * sale whose process call never reaches the platform is stored offline by PaymentService's
 * journal transaction, shown approved, and uploaded once the platform answers again.
 */
const fixture = useDemoPlatform();
let t: Terminal | undefined;
let offline: Offline | undefined;
let down = false;

afterEach(async () => {
  // The uploader stops before its terminal closes (the fixture's own close is then a no-op).
  await offline?.uploader.stop();
  await t?.close();
  t = undefined;
  offline = undefined;
  down = false;
});

const notSent = (): PlatformError =>
  new PlatformError('connection refused (test: platform down)', {
    category: 'network',
    operation: 'process',
    method: 'POST',
    outcomeUnknown: false,
    transportCode: 'ECONNREFUSED',
  });

async function terminal(config?: Record<string, unknown>): Promise<{ t: Terminal; offline: Offline }> {
  // PaymentService is built before the offline component that shares its journal: the hook forwards.
  let o: Offline | undefined;
  const hook: OfflineHook = {
    eligible: (c) => (o as Offline).hook.eligible(c),
    store: (s) => (o as Offline).hook.store(s),
  };
  let raw: PaymentsPlatform | undefined;
  const term = await fixture.startTerminal({
    ...(config !== undefined ? { config } : {}),
    offline: hook,
    wrap: (p) => {
      raw = p;
      return {
        process: (b, c) => (down ? Promise.reject(notSent()) : p.process(b, c)),
        capture: (id, b, c) => p.capture(id, b, c),
        captureAll: (b, c) => p.captureAll(b, c),
        refund: (id, b, c) => p.refund(id, b, c),
        cancel: (id, b, c) => p.cancel(id, b, c),
        allowedOperations: (id, c) => p.allowedOperations(id, c),
        status: (id, c) => p.status(id, c),
        refundByWeb: (id, b, c) => p.refundByWeb(id, b, c),
        qrTerminalPayment: (b, c) => p.qrTerminalPayment(b, c),
      };
    },
  });
  const client = raw as PaymentsPlatform;
  o = createOffline({
    db: term.journal.db,
    reports: offlineSaleReports(new JournalWriter(term.journal, term.bus), fixture.demo.log),
    platform: {
      process: (b, c) => client.process(b, c),
      status: (id, c) => client.status(id, c),
      isAvailable: async () => !down,
    },
    bus: term.bus,
    log: fixture.demo.log,
    config: term.config.offline,
    backoff: { baseMs: 5, capMs: 20 },
  });
  t = term;
  offline = o;
  return { t: term, offline: o };
}

describe('offline card sales through PaymentService and the offline queue', () => {
  it('stores an offline-approved sale when the platform cannot be reached, then uploads it exactly once', async () => {
    const { t, offline } = await terminal();
    down = true;
    t.devices.reader.next({
      outcome: 'ok',
      entryMode: 'ContactlessChip',
      card: visaCard('476173******0010'),
      offlineApproved: true,
    });
    const started = await t.service.startSale({ method: 'card', amount: 1500, currency: 'EUR' });
    const view = await started.done;
    const id = started.clientTransactionId;
    expect(view).toMatchObject({ state: 'offline_stored', offline: true });
    expect(t.devices.reader.results.at(-1)).toMatchObject({ approved: true });
    expect(offline.get(id)).toMatchObject({
      state: 'queued',
      amount: 1500,
      currency: 'EUR',
      maskedPan: '476173******0010',
      entryMode: 'ContactlessChip',
    });
    expect(offline.levels().count.stored).toBe(1);

    down = false;
    expect(await offline.uploader.flush()).toMatchObject({ uploaded: 1, remaining: 0 });
    const after = await t.service.get(id);
    expect(after).toMatchObject({ state: 'approved', offline: true, platformStatus: CAPTURED_STATUS });
    expect(after.serverTransactionId).toBe(offline.get(id)?.serverTransactionId);
    expect(
      fixture.demo.platform.payments
        .ledger()
        .filter((e) => e.paymentClientTransactionId === id)
        .map((e) => [e.kind, e.amount]),
    ).toEqual([['sale', 1500]]);
    expect(fixture.demo.sink.text()).not.toContain(visaCard().encryptedData);
    expect(fixture.demo.sink.text()).not.toContain(ENCRYPTED);
  });

  it('an uploaded authorization is captured with payments.captureMode immediate, once (m-1002 answers Accepted)', async () => {
    const { t, offline } = await terminal({ payments: { captureMode: { merchants: { 'm-1002': 'immediate' } } } });
    down = true;
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true });
    const started = await t.service.startSale({ method: 'card', amount: 1_800, currency: 'EUR', merchantId: 'm-1002' });
    expect(await started.done).toMatchObject({ state: 'offline_stored' });
    const id = started.clientTransactionId;
    down = false;
    expect(await offline.uploader.flush()).toMatchObject({ uploaded: 1 });
    await t.service.idle();
    expect(await t.service.get(id)).toMatchObject({ state: 'approved', offline: true, capturedAmount: 1_800 });
    const captures = t.service.list().filter((v) => v.kind === 'capture' && v.relatedClientTransactionId === id);
    expect(captures).toMatchObject([{ state: 'approved', amount: 1_800 }]);
    // Another round (nothing to upload) and a restart-free re-announce capture nothing more.
    await offline.uploader.flush();
    await t.service.idle();
    const ledger = fixture.demo.platform.payments.ledger().filter((e) => e.paymentClientTransactionId === id);
    expect(ledger.map((e) => [e.kind, e.amount])).toEqual([
      ['authorization', 1_800],
      ['capture', 1_800],
    ]);
  });

  it('fails a sale the policy refuses offline, saying which rule, and stores nothing', async () => {
    const { t, offline } = await terminal();
    down = true;
    t.devices.reader.next({ outcome: 'ok', entryMode: 'Magstripe', card: visaCard(), offlineApproved: true });
    const swiped = await t.service.startSale({ method: 'card', amount: 1000, currency: 'EUR' });
    expect(await swiped.done).toMatchObject({
      state: 'failed',
      message: expect.stringMatching(/magstripe card cannot be taken offline/),
    });

    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: visaCard(), offlineApproved: true });
    const big = await t.service.startSale({ method: 'card', amount: 30_000, currency: 'EUR' });
    expect(await big.done).toMatchObject({
      state: 'failed',
      message: expect.stringMatching(/offline floor limit 250\.00 EUR exceeded/),
    });
    expect(offline.list()).toEqual([]);
    expect(t.devices.reader.results.every((r) => !r.approved)).toBe(true);
  });
});
