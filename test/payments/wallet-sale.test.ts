import { afterEach, describe, expect, it } from 'vitest';
import { createEventRelay, type EventRelay } from '../../src/payments/relay/relay.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { untilTrue } from '../helpers/wait.js';

const fixture = useDemoPlatform();
let t: Terminal;
let relay: EventRelay | undefined;

afterEach(() => {
  relay?.stop();
  relay = undefined;
});

function startRelay(): void {
  relay = createEventRelay({
    store: t.service,
    fetchStatus: (id, merchantId) => t.platform.status(id, merchantId !== undefined ? { merchantId } : {}),
    log: fixture.demo.log,
    policy: { fastIntervalMs: 20 },
    timeZone: t.config.platform.timeZone,
  });
  relay.start();
}

describe('wallet sales against the demo platform', () => {
  it('walletA consumer scan: QR from orderCodeForm shown with expiry, tracked, paid through the relay', async () => {
    t = await fixture.startTerminal();
    const tracked: string[] = [];
    t.service.onTracking((p) => tracked.push(p.clientTransactionId));
    startRelay();
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'ConsumerScan',
      amount: 1500,
      currency: 'EUR',
    });
    await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0);
    const waiting = await t.service.get(started.clientTransactionId);
    expect(waiting).toMatchObject({
      state: 'awaiting_customer',
      platformStatus: 'Initialized',
      method: 'walletA',
      scenario: 'ConsumerScan',
    });
    expect(waiting.qr?.codeValue).toMatch(/^https:\/\/qr\.wallet-a\.example\/pay\//);
    // ISO 8601 with the walletA offset (standard), or the platform's 12-hour server form (strict).
    expect(waiting.qr?.expireTime).toMatch(/\+08:00$|^\d{1,2}\/\d{1,2}\/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M$/);
    expect(t.devices.display.qrs[0]).toMatchObject({
      codeValue: waiting.qr?.codeValue,
      caption: '15.00 EUR - scan with walletA',
      opts: { clientTransactionId: started.clientTransactionId },
    });
    expect(tracked).toEqual([started.clientTransactionId]);
    expect(t.service.pendingTracking()).toMatchObject([
      { clientTransactionId: started.clientTransactionId, expireTime: waiting.qr?.expireTime },
    ]);
    fixture.demo.platform.payments.wallet.pay(started.clientTransactionId);
    const done = await started.done;
    expect(done).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect(done.qr).toBeUndefined();
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(1500);
    expect(t.service.pendingTracking()).toEqual([]);
    // Each platform event once on the bus (the relay publishes what payments applied).
    const platformEvents = t.events.filter(
      (e) => e.type === 'transaction.updated' && (e.data as { platformEvent?: unknown }).platformEvent !== undefined,
    );
    const keys = platformEvents.map((e) => JSON.stringify((e.data as { platformEvent: unknown }).platformEvent));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(done.events.length);
  });

  it('walletB consumer scan: QR from codeValue; a failed payment ends the sale failed; the display is free again', async () => {
    t = await fixture.startTerminal();
    const started = await t.service.startSale({
      method: 'walletB',
      scenario: 'ConsumerScan',
      amount: 990,
      currency: 'EUR',
    });
    await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0);
    expect(t.devices.display.qrs[0]?.codeValue).toMatch(/^https:\/\/pay\.wallet-b\.example\/qr\//);
    await expect(t.service.startSale({ method: 'walletA', amount: 100, currency: 'EUR' })).rejects.toMatchObject({
      code: 'PAYMENT_BUSY',
    });
    fixture.demo.platform.payments.wallet.fail(started.clientTransactionId);
    const refreshed = await t.service.get(started.clientTransactionId, { refresh: true });
    expect(refreshed).toMatchObject({ state: 'failed', platformStatus: 'Failed' });
    expect((await started.done).state).toBe('failed');
    const next = await t.service.startSale({ method: 'walletA', amount: 100, currency: 'EUR' });
    await untilTrue('a second QR on the display', () => t.devices.display.qrs.length > 1);
    expect((await t.service.abortSale(next.clientTransactionId)).state).toBe('cancelled');
  });

  it('an expired QR is no outcome: the platform is asked to cancel and its word ends the sale; the platform expiry is adopted too', async () => {
    t = await fixture.startTerminal();
    const started = await t.service.startSale({ method: 'walletA', amount: 300, currency: 'EUR' });
    await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0);
    const view = t.service.qrExpired(started.clientTransactionId);
    expect(view).toMatchObject({ state: 'pending', message: /outcome being checked, do not take the payment again/ });
    expect(view.qr).toBeUndefined();
    const done = await started.done;
    expect(done).toMatchObject({
      state: 'reversed',
      message: 'the QR code expired: the platform cancelled the payment, nothing was charged',
    });
    expect(fixture.demo.platform.payments.transaction(started.clientTransactionId)?.transactionStatus).toBe(
      'cancelled',
    );
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(0);
    const second = await t.service.startSale({ method: 'walletB', amount: 300, currency: 'EUR' });
    await untilTrue('a second QR on the display', () => t.devices.display.qrs.length > 1);
    fixture.demo.platform.payments.wallet.expire(second.clientTransactionId);
    const applied = t.service.applyStatusRecord(
      second.clientTransactionId,
      fixture.demo.platform.payments.transaction(second.clientTransactionId) as unknown as Record<string, unknown>,
    );
    expect(applied.final).toBe(true);
    expect(applied.view).toMatchObject({ state: 'failed', platformStatus: 'Expired' });
    expect(applied.newEvents.length).toBeGreaterThan(0);
    // Applying the same record again delivers no event twice.
    expect(
      t.service.applyStatusRecord(
        second.clientTransactionId,
        fixture.demo.platform.payments.transaction(second.clientTransactionId) as unknown as Record<string, unknown>,
      ).newEvents,
    ).toEqual([]);
  });

  it('abortSale while the QR is shown voids the wallet payment at the platform', async () => {
    t = await fixture.startTerminal();
    const started = await t.service.startSale({ method: 'walletA', amount: 2500, currency: 'EUR' });
    await untilTrue('a QR on the display', () => t.devices.display.qrs.length > 0);
    const aborted = await t.service.abortSale(started.clientTransactionId);
    expect(aborted).toMatchObject({ state: 'cancelled', cancelledAmount: 2500 });
    expect(fixture.demo.platform.payments.transaction(started.clientTransactionId)?.transactionStatus).toBe(
      'cancelled',
    );
    expect((await started.done).state).toBe('cancelled');
    expect(t.devices.display.clears).toBe(1);
  });

  it('walletA merchant scan: the scanned line becomes walletId; Accepted at once', async () => {
    t = await fixture.startTerminal();
    t.devices.scanner.push('  281012345678901234  ');
    const started = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      amount: 4200,
      currency: 'EUR',
    });
    const view = await started.done;
    expect(view).toMatchObject({ state: 'approved', platformStatus: 'Accepted', scenario: 'MerchantScan' });
    expect(fixture.demo.platform.payments.transaction(started.clientTransactionId)?.events[0]).toMatchObject({
      WalletId: '281012345678901234',
    });
    expect(t.devices.display.texts[0]).toEqual(['42.00 EUR', 'Show your wallet code']);
  });

  it('walletB merchant scan with a given walletId: Initialized, then confirmed through the status call', async () => {
    t = await fixture.startTerminal();
    const started = await t.service.startSale({
      method: 'walletB',
      scenario: 'MerchantScan',
      amount: 1300,
      currency: 'EUR',
      walletId: 'WB-CODE-1',
    });
    await untilTrue('one sale tracked', () => t.service.pendingTracking().length === 1);
    expect((await t.service.get(started.clientTransactionId)).state).toBe('awaiting_customer');
    expect(t.devices.scanner.calls).toEqual([]);
    fixture.demo.platform.faults.clockOffsetMs = 2_000;
    const view = await t.service.get(started.clientTransactionId, { refresh: true });
    expect(view).toMatchObject({ state: 'approved', platformStatus: 'Accepted' });
    expect((await started.done).state).toBe('approved');
  });

  it('merchant scan without a scan in time fails clearly; aborting while waiting for the scan cancels', async () => {
    t = await fixture.startTerminal({ config: { devices: { scanTimeoutMs: 50 } } });
    const view = await (
      await t.service.startSale({ method: 'walletB', scenario: 'MerchantScan', amount: 100, currency: 'EUR' })
    ).done;
    expect(view).toMatchObject({ state: 'failed', message: /no customer code was scanned within 0 s/ });
    await t.close();
    t = await fixture.startTerminal({ config: { devices: { scanTimeoutMs: 60_000 } } });
    const waiting = await t.service.startSale({
      method: 'walletA',
      scenario: 'MerchantScan',
      amount: 100,
      currency: 'EUR',
    });
    await untilTrue('one scanner call', () => t.devices.scanner.calls.length === 1);
    expect((await t.service.abortSale(waiting.clientTransactionId)).state).toBe('cancelled');
  });
});
