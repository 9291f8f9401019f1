import { describe, expect, it } from 'vitest';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { visaCard } from '../helpers/fake-peripherals.js';
import { testSimProfile } from '../helpers/demo-platform.js';

const fixture = useDemoPlatform();
let t: Terminal;

describe('card sales against the demo platform', () => {
  it('chip sale, immediate capture by the platform (m-1001): approved, captured, card data gone, outcome on the reader', async () => {
    t = await fixture.startTerminal();
    const started = await t.service.startSale({ method: 'card', amount: 1234, currency: 'EUR' });
    const view = await started.done;
    // The status word is the platform's: `Captured`, or `Accepted` with the capture event under the strict profile.
    expect(view).toMatchObject({
      state: 'approved',
      platformStatus: testSimProfile() === 'strict' ? 'Accepted' : 'Captured',
      capturedAmount: 1234,
      maskedPan: '411111******1111',
      scheme: 'VISA',
      entryMode: 'ContactChip',
    });
    expect(view.serverTransactionId).toBeDefined();
    expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(1234);
    expect(t.service.row(started.clientTransactionId)?.cardSecret).toBeUndefined();
    expect(t.devices.reader.requests[0]).toMatchObject({
      amount: 1234,
      currency: 'EUR',
      entryModes: ['ContactChip', 'ContactlessChip', 'Magstripe'],
      clientTransactionId: started.clientTransactionId,
    });
    expect(t.devices.reader.results).toEqual([{ approved: true, text: 'Approved' }]);
    expect(t.devices.display.texts.at(-1)).toEqual(['12.34 EUR', 'Approved']);
    const states = t.events
      .filter((e) => e.type === 'transaction.updated')
      .map((e) => (e.data as { status: string }).status);
    const platformEvents = t.events
      .map((e) => (e.data as { platformEvent?: { eventType?: string } }).platformEvent?.eventType)
      .filter(Boolean);
    // One update per platform event (card request, authorization, capture, and any event type the
    // agent does not know, which the strict platform adds: kept and relayed), each once.
    expect(states).toEqual(['awaiting_customer', 'in_flight', ...platformEvents.map(() => 'approved')]);
    expect(platformEvents.filter((type) => type?.startsWith('card'))).toEqual([
      'cardRequest',
      'cardAuthorizationResult',
      'cardCaptureResult',
    ]);
    const text = JSON.stringify(t.events) + JSON.stringify(view) + fixture.demo.sink.text();
    expect(text).not.toContain('ENCRYPTED-CARD-DATA');
  });

  it('declined by the issuer (PAN ending 0002): declined with the reason, nothing charged', async () => {
    t = await fixture.startTerminal();
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactlessChip', card: visaCard('411111******0002') });
    const view = await (await t.service.startSale({ method: 'card', amount: 500, currency: 'EUR' })).done;
    expect(view.state).toBe('declined');
    expect(view.message).toMatch(/do not honour/);
    expect(view.platformStatus).toBe('Refused');
    expect(t.devices.reader.results).toEqual([{ approved: false, text: 'Declined' }]);
  });

  it('an amount ending in 51 minor units is declined (insufficient funds)', async () => {
    t = await fixture.startTerminal();
    const view = await (await t.service.startSale({ method: 'card', amount: 1051, currency: 'EUR' })).done;
    expect(view).toMatchObject({ state: 'declined' });
    expect(view.message).toMatch(/insufficient funds/);
  });

  it('online PIN: the reader pin fields travel in the process body; the sale is approved', async () => {
    t = await fixture.startTerminal();
    t.devices.reader.next({
      outcome: 'ok',
      entryMode: 'ContactChip',
      card: visaCard(),
      pin: { pinblock: 'A1B2C3D4E5F60718', ksn: 'FFFF000001', format: 'ISO0' },
    });
    const started = await t.service.startSale({ method: 'card', amount: 2000, currency: 'EUR' });
    const view = await started.done;
    expect(view, view.message).toMatchObject({ state: 'approved' });
    const record = fixture.demo.platform.payments.transaction(started.clientTransactionId);
    expect(record?.events[0]).toMatchObject({ onlinePin: true, entryMode: 'ContactChip' });
    expect(fixture.demo.sink.text() + JSON.stringify(t.events)).not.toContain('A1B2C3D4E5F60718');
  });

  it('authorization only (m-1002) with captureMode deferred: approved, Accepted, capturable later (full and partial)', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } } });
    const first = await (
      await t.service.startSale({ method: 'card', amount: 3000, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(first).toMatchObject({ state: 'approved', platformStatus: 'Accepted', capturedAmount: 0 });
    expect(first.message).toMatch(/not captured yet/);
    const capture = await t.service.capture(first.clientTransactionId, { amount: 2500 });
    expect(capture).toMatchObject({
      kind: 'capture',
      state: 'approved',
      amount: 2500,
      relatedClientTransactionId: first.clientTransactionId,
    });
    const sale = await t.service.get(first.clientTransactionId);
    // Captured shows in the amount; the status word depends on the platform (`Captured`, or `Accepted` under the strict profile).
    expect(sale).toMatchObject({ state: 'approved', capturedAmount: 2500 });
    expect(sale.message).not.toMatch(/not captured yet/);
    expect(fixture.demo.platform.payments.netCharged(first.clientTransactionId)).toBe(2500);
    await expect(t.service.capture(first.clientTransactionId)).rejects.toMatchObject({
      code: 'PAYMENT_STATE',
      message: /captured already/,
    });
  });

  it('captureMode immediate captures an authorization-only answer right away (m-1002)', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'immediate' } } });
    const view = await (
      await t.service.startSale({ method: 'card', amount: 4000, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(view).toMatchObject({ state: 'approved', capturedAmount: 4000 });
    const ops = t.service.list().filter((v) => v.relatedClientTransactionId === view.clientTransactionId);
    expect(ops).toMatchObject([{ kind: 'capture', state: 'approved', amount: 4000 }]);
  });

  it('capture all: every pending authorization of the merchant is captured', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } } });
    const a = await (
      await t.service.startSale({ method: 'card', amount: 1100, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    const b = await (
      await t.service.startSale({ method: 'card', amount: 1200, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    const captured = await t.service.captureAll('m-1002');
    expect(captured.map((v) => v.clientTransactionId).sort()).toEqual(
      [a.clientTransactionId, b.clientTransactionId].sort(),
    );
    for (const v of captured) expect(v).toMatchObject({ state: 'approved', capturedAmount: v.amount });
    expect((await t.service.get(a.clientTransactionId)).capturedAmount).toBe(1100);
    expect(fixture.demo.platform.payments.netCharged(b.clientTransactionId)).toBe(1200);
    // Nothing is left to capture: a second capture-all finds nothing of these two.
    expect((await t.service.captureAll('m-1002')).map((v) => v.clientTransactionId)).not.toContain(
      a.clientTransactionId,
    );
  });

  it('capture all without a merchant captures the pending authorizations of every merchant, not only the default one', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred', reversalRetryCapMs: 200 } } });
    const books = await (
      await t.service.startSale({ method: 'card', amount: 1300, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    const coffee = await (await t.service.startSale({ method: 'card', amount: 1400, currency: 'EUR' })).done;
    expect(books.capturedAmount).toBe(0);
    const captured = await t.service.captureAll();
    expect(captured.map((v) => v.clientTransactionId)).toContain(books.clientTransactionId);
    expect((await t.service.get(books.clientTransactionId)).capturedAmount).toBe(1300);
    expect(fixture.demo.platform.payments.netCharged(books.clientTransactionId, 'm-1002')).toBe(1300);
    // The default merchant's sale was captured already or is captured now: nothing of it is left pending.
    expect((await t.service.get(coffee.clientTransactionId)).state).toBe('approved');
  });

  it('a capture answered with a status other than Captured (strict profile: Accepted) counts: the sale is captured, once', async () => {
    const profile = fixture.demo.platform.context.profile;
    const before = profile.name;
    profile.set('strict');
    try {
      t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
      const sale = await (
        await t.service.startSale({ method: 'card', amount: 3300, currency: 'EUR', merchantId: 'm-1002' })
      ).done;
      const capture = await t.service.capture(sale.clientTransactionId);
      expect(capture).toMatchObject({ kind: 'capture', state: 'approved', platformStatus: 'Accepted' });
      const after = await t.service.get(sale.clientTransactionId);
      expect(after).toMatchObject({ state: 'approved', platformStatus: 'Accepted', capturedAmount: 3300 });
      expect(after.message).not.toMatch(/not captured yet/);
      await expect(t.service.capture(sale.clientTransactionId)).rejects.toMatchObject({
        code: 'PAYMENT_STATE',
        message: /captured already/,
      });
      // A captured sale is refunded, not cancelled.
      await expect(t.service.cancel(sale.clientTransactionId)).rejects.toMatchObject({
        details: { suggest: 'refund' },
      });
      const ledger = fixture.demo.platform.payments
        .ledger()
        .filter((l) => l.paymentClientTransactionId === sale.clientTransactionId);
      expect(ledger.filter((l) => l.kind === 'capture').map((l) => l.amount)).toEqual([3300]);
    } finally {
      profile.set(before);
    }
  });

  it('strict profile: an immediate-capture merchant (m-1001) answers Accepted, the capture only in its event: captured once, from the event', async () => {
    const profile = fixture.demo.platform.context.profile;
    const before = profile.name;
    profile.set('strict');
    try {
      // captureMode immediate: the agent would capture an `Accepted` sale it saw nothing captured on.
      t = await fixture.startTerminal({ config: { payments: { captureMode: 'immediate' } } });
      const started = await t.service.startSale({ method: 'card', amount: 2468, currency: 'EUR' });
      const view = await started.done;
      expect(view, view.message).toMatchObject({ state: 'approved', platformStatus: 'Accepted', capturedAmount: 2468 });
      expect(view.message).not.toMatch(/not captured yet/);
      const record = fixture.demo.platform.payments.transaction(started.clientTransactionId);
      expect(record?.transactionStatus).toBe('Accepted');
      // No capture of its own: no capture row, the platform's ledger holds the one sale movement.
      expect(t.service.list().filter((v) => v.relatedClientTransactionId === started.clientTransactionId)).toEqual([]);
      const ledger = fixture.demo.platform.payments
        .ledger()
        .filter((l) => l.paymentClientTransactionId === started.clientTransactionId);
      expect(ledger.filter((l) => l.kind === 'capture')).toEqual([]);
      expect(fixture.demo.platform.payments.netCharged(started.clientTransactionId)).toBe(2468);
      // Captured: refunded, not cancelled, and never captured again.
      await expect(t.service.capture(started.clientTransactionId)).rejects.toMatchObject({
        code: 'PAYMENT_STATE',
        message: /captured already/,
      });
      await expect(t.service.cancel(started.clientTransactionId)).rejects.toMatchObject({
        details: { suggest: 'refund' },
      });
    } finally {
      profile.set(before);
    }
  });

  it('manual key entry and MOTO are keyed on the reader; MOTO with AVS and with e-mail is approved', async () => {
    t = await fixture.startTerminal();
    const manual = await (await t.service.startSale({ method: 'manual', amount: 700, currency: 'EUR' })).done;
    expect(manual).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    expect(t.devices.reader.requests[0]?.entryModes).toEqual(['Keyed']);
    expect(t.devices.reader.requests[0]?.offlineAllowed).toBe(false);
    const avs = await (
      await t.service.startSale({
        method: 'moto',
        amount: 800,
        currency: 'EUR',
        moto: { orderChannel: 'phone', zipCode: '10115', houseNumber: '12' },
      })
    ).done;
    expect(avs).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    expect(fixture.demo.platform.payments.transaction(avs.clientTransactionId)?.events[0]).toMatchObject({
      orderChannel: 'phone',
    });
    const mail = await (
      await t.service.startSale({ method: 'moto', amount: 900, currency: 'EUR', moto: { email: 'c@example.com' } })
    ).done;
    expect(mail.state).toBe('approved');
  });

  it('MOTO read as anything but Keyed is refused before the request leaves', async () => {
    t = await fixture.startTerminal();
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactlessChip', card: visaCard() });
    const started = await t.service.startSale({
      method: 'moto',
      amount: 800,
      currency: 'EUR',
      moto: { phone: '+4930123' },
    });
    const view = await started.done;
    expect(view.state).toBe('failed');
    expect(view.message).toMatch(/keyed in \(entry mode Keyed\), not ContactlessChip/);
    expect(fixture.demo.platform.payments.transaction(started.clientTransactionId)).toBeUndefined();
  });

  it('invalid sale requests are refused with a clear error and journal nothing', async () => {
    t = await fixture.startTerminal();
    await expect(t.service.startSale({ method: 'card', amount: -1, currency: 'EUR' })).rejects.toMatchObject({
      code: 'AMOUNT_INVALID',
    });
    await expect(t.service.startSale({ method: 'card', amount: 12.5, currency: 'EUR' })).rejects.toMatchObject({
      code: 'AMOUNT_INVALID',
    });
    await expect(t.service.startSale({ method: 'card', amount: 100, currency: 'ZZZ' })).rejects.toMatchObject({
      code: 'CURRENCY_UNKNOWN',
    });
    await expect(t.service.startSale({ method: 'moto', amount: 100, currency: 'EUR' })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: /MOTO needs/,
    });
    await expect(
      t.service.startSale({ method: 'moto', amount: 100, currency: 'EUR', moto: { zipCode: '1' } }),
    ).rejects.toMatchObject({ message: /orderChannel, zipCode and houseNumber/ });
    await expect(
      t.service.startSale({ method: 'bitcoin' as 'card', amount: 100, currency: 'EUR' }),
    ).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    expect(t.service.list()).toEqual([]);
  });

  it('reader outcomes: timeout, cancel at the reader, reader error; abortSale while waiting for the card', async () => {
    t = await fixture.startTerminal();
    t.devices.reader.next(
      { outcome: 'timeout', reason: 'no card' },
      { outcome: 'cancelled', reason: 'customer' },
      { outcome: 'error', reason: 'chip error' },
      'wait-abort',
    );
    expect(await (await t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' })).done).toMatchObject({
      state: 'failed',
      message: /no card was presented within 90 s/,
    });
    expect(await (await t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' })).done).toMatchObject({
      state: 'cancelled',
    });
    expect(await (await t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' })).done).toMatchObject({
      state: 'failed',
      message: /chip error/,
    });
    const waiting = await t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' });
    await expect(t.service.startSale({ method: 'card', amount: 100, currency: 'EUR' })).rejects.toMatchObject({
      code: 'PAYMENT_BUSY',
    });
    const aborted = await t.service.abortSale(waiting.clientTransactionId);
    expect(aborted.state).toBe('cancelled');
    expect((await waiting.done).state).toBe('cancelled');
    expect(
      fixture.demo.platform.payments.ledger().filter((l) => t.service.row(l.paymentClientTransactionId) !== undefined),
    ).toEqual([]);
  });
});
