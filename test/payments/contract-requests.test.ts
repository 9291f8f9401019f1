import { afterEach, describe, expect, it } from 'vitest';
import type { PaymentsPlatform } from '../../src/payments/index.js';
import { cardProcessBody } from '../../src/payments/card-body.js';
import { cancelBody } from '../../src/payments/cancel-outcome.js';
import type { JournalRow } from '../../src/payments/journal/index.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import { visaCard } from '../helpers/fake-peripherals.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';

/**
 * Exact requests (docs/platform-contract.md, "Endpoints"): every body the agent sends
 * carries only the fields the contract names plus the decisions recorded there, and the
 * strict demo platform (which refuses anything else) takes every flow.
 */
const fixture = useDemoPlatform();
let t: Terminal;
const strict = (): void => fixture.demo.platform.context.profile.set('strict');
afterEach(() => {
  fixture.demo.platform.context.profile.set(testSimProfile());
});

const keys = (o: unknown): string[] => Object.keys(o as object).sort();
const sale = { clientTransactionId: 's-1', clientDateTime: '2026-03-01T10:00:00.000Z', amount: 1_000, currency: 'EUR' };

describe('request bodies: exact key sets', () => {
  it('card process bodies: chip, online PIN, MOTO without and with address verification (no MOTO marker)', () => {
    const chip = cardProcessBody(sale, 'instore', 'ContactChip', visaCard());
    expect(keys(chip)).toEqual([
      'authorizationAmount',
      'channel',
      'clientDateTime',
      'clientNewTransactionId',
      'entryMode',
      'instrument',
    ]);
    expect(keys(chip.instrument)).toEqual(['card', 'instrumentType']);
    expect(keys(chip.instrument.card)).toEqual(['encryptedData', 'expiry', 'ksn', 'maskedPan', 'scheme']);
    const pin = cardProcessBody(sale, 'instore', 'ContactChip', visaCard(), {
      pinblock: 'A1B2C3D4E5F60718',
      ksn: 'FFFF000001',
      format: 'ISO0',
    });
    expect(keys(pin)).toEqual([
      'authorizationAmount',
      'channel',
      'clientDateTime',
      'clientNewTransactionId',
      'entryMode',
      'instrument',
      'ksn',
      'pinblock',
      'pinblockFormat',
    ]);
    const mail = cardProcessBody(sale, 'instore', 'Keyed', visaCard(), undefined, { email: 'c@example.com' });
    expect(keys(mail)).toEqual([
      'authorizationAmount',
      'channel',
      'clientDateTime',
      'clientNewTransactionId',
      'entryMode',
      'instrument',
    ]);
    expect(keys(mail.instrument)).toEqual(['card', 'email', 'instrumentType']);
    expect(mail.entryMode).toBe('Keyed');
    const avs = cardProcessBody(sale, 'instore', 'Keyed', visaCard(), undefined, {
      orderChannel: 'phone',
      zipCode: '10115',
      houseNumber: '12',
    });
    expect(keys(avs)).toEqual([
      'authorizationAmount',
      'channel',
      'clientDateTime',
      'clientNewTransactionId',
      'entryMode',
      'houseNumber',
      'instrument',
      'orderChannel',
      'zipCode',
    ]);
    expect(keys(avs.instrument)).toEqual(['card', 'instrumentType']);
  });

  it('cancel bodies: clientDateTime, channel, cancelReason, cancelAmount, instrument {instrumentType}, approvalCode only when given; no id', () => {
    const row = { ...sale, method: 'walletA' } as unknown as JournalRow;
    const op = {
      clientTransactionId: 'c-1',
      clientDateTime: '2026-03-01T10:05:00.000Z',
      amount: 400,
      cancelReason: 'Technical',
    } as unknown as JournalRow;
    const body = cancelBody({ channel: 'instore' }, row, op);
    expect(body).toEqual({
      clientDateTime: '2026-03-01T10:05:00.000Z',
      channel: 'instore',
      cancelReason: 'Technical',
      cancelAmount: { amount: 400, currency: 'EUR' },
      instrument: { instrumentType: 'walletA' },
    });
    expect(keys(cancelBody({ channel: 'instore' }, row, op, '4711'))).toEqual([
      'approvalCode',
      'cancelAmount',
      'cancelReason',
      'channel',
      'clientDateTime',
      'instrument',
    ]);
  });

  it('every request of the running agent, flow by flow, has exactly the contract key set', async () => {
    const sent: Array<[string, string[], unknown]> = [];
    const record = (name: string, body: unknown): void => {
      sent.push([name, keys(body), body]);
    };
    t = await fixture.startTerminal({
      config: { payments: { captureMode: 'deferred' } },
      wrap: (p) => recording(p, record),
    });
    strict();
    const m2 = { merchantId: 'm-1002' };
    const a = (await (await t.service.startSale({ method: 'card', amount: 1_000, currency: 'EUR', ...m2 })).done)
      .clientTransactionId;
    await t.service.capture(a, { amount: 400 });
    await t.service.refund(a, { amount: 100, approvalCode: '4711' });
    const b = (await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR', ...m2 })).done)
      .clientTransactionId;
    await t.service.cancel(b, { approvalCode: '4711' });
    await (
      await t.service.startSale({ method: 'card', amount: 3_000, currency: 'EUR', ...m2 })
    ).done;
    await t.service.captureAll('m-1002');
    const w = (
      await (
        await t.service.startSale({
          method: 'walletA',
          scenario: 'MerchantScan',
          walletId: 'W-1',
          amount: 500,
          currency: 'EUR',
        })
      ).done
    ).clientTransactionId;
    await t.service.refundByWeb(w, { amount: 200 });
    await (
      await t.service.startSale({
        method: 'walletA',
        scenario: 'MerchantScan',
        via: 'qrTerminal',
        walletId: 'WA-1',
        amount: 300,
        currency: 'EUR',
      })
    ).done;
    const byName = (name: string): string[][] => sent.filter(([n]) => n === name).map(([, k]) => k);
    expect(byName('process')[0]).toEqual([
      'authorizationAmount',
      'channel',
      'clientDateTime',
      'clientNewTransactionId',
      'entryMode',
      'instrument',
    ]);
    expect(byName('capture')).toEqual([['captureAmount', 'channel', 'clientDateTime']]);
    expect(byName('refund')).toEqual([
      ['approvalCode', 'channel', 'clientDateTime', 'clientNewTransactionId', 'instrument', 'refundAmount'],
    ]);
    expect(byName('cancel')).toEqual([
      ['approvalCode', 'cancelAmount', 'cancelReason', 'channel', 'clientDateTime', 'instrument'],
    ]);
    expect(byName('captureAll')).toEqual([['channel', 'clientDateTime']]);
    expect(byName('refundByWeb')).toEqual([['amount', 'clientDateTime', 'clientNewTransactionId']]);
    expect(byName('qrTerminalPayment')).toEqual([
      ['clientTransactionId', 'order', 'paymentAmount', 'paymentScenario', 'paymentType', 'scannedPaymentId'],
    ]);
    const wallet = sent.filter(
      ([n, , body]) =>
        n === 'process' && (body as { instrument: { instrumentType: string } }).instrument.instrumentType === 'walletA',
    );
    expect(keys((wallet[0]?.[2] as { instrument: unknown }).instrument)).toEqual([
      'instrumentType',
      'paymentScenario',
      'walletId',
    ]);
    // And the strict platform took every one of them.
    expect(t.service.list().filter((v) => v.state === 'failed' || v.state === 'needs_attention')).toEqual([]);
  });
});

describe('the strict platform takes every flow', () => {
  it('MOTO with address verification and without it (e-mail, phone): approved, keyed', async () => {
    t = await fixture.startTerminal();
    strict();
    const avs = await (
      await t.service.startSale({
        method: 'moto',
        amount: 800,
        currency: 'EUR',
        moto: { orderChannel: 'phone', zipCode: '10115', houseNumber: '12' },
      })
    ).done;
    expect(avs, avs.message).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    const mail = await (
      await t.service.startSale({ method: 'moto', amount: 900, currency: 'EUR', moto: { email: 'c@example.com' } })
    ).done;
    expect(mail, mail.message).toMatchObject({ state: 'approved', entryMode: 'Keyed' });
    const phone = await (
      await t.service.startSale({ method: 'moto', amount: 950, currency: 'EUR', moto: { phone: '+4930123456' } })
    ).done;
    expect(phone, phone.message).toMatchObject({ state: 'approved' });
    expect(fixture.demo.platform.payments.netCharged(avs.clientTransactionId)).toBe(800);
  });

  it('a staff cancel (void with approval code) and an online PIN sale', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    strict();
    const s = (
      await (
        await t.service.startSale({ method: 'card', amount: 2_500, currency: 'EUR', merchantId: 'm-1002' })
      ).done
    ).clientTransactionId;
    // Strict answers the cancel of a charged sale pending, then completes it: followed to final.
    const cancel = await fixture.final(t, await t.service.cancel(s, { approvalCode: '4711' }));
    expect(cancel).toMatchObject({ kind: 'cancel', state: 'approved', platformStatus: 'cancelled' });
    expect(await t.service.get(s)).toMatchObject({ state: 'cancelled', cancelledAmount: 2_500 });
    t.devices.reader.next({
      outcome: 'ok',
      entryMode: 'ContactChip',
      card: visaCard(),
      pin: { pinblock: 'A1B2C3D4E5F60718', ksn: 'FFFF000001', format: 'ISO0' },
    });
    expect((await (await t.service.startSale({ method: 'card', amount: 1_200, currency: 'EUR' })).done).state).toBe(
      'approved',
    );
  });

  it('allowed operations are read from the bare record {allowed, maxAmount, currency}', async () => {
    t = await fixture.startTerminal();
    strict();
    const w = (
      await (
        await t.service.startSale({
          method: 'walletA',
          scenario: 'MerchantScan',
          walletId: 'W-2',
          amount: 5_000,
          currency: 'EUR',
        })
      ).done
    ).clientTransactionId;
    expect(await t.service.allowedOperations(w)).toMatchObject({
      fromPlatform: true,
      cancel: { allowed: true, maxAmount: 5_000 },
    });
    // A partial cancel the agent did not make (another terminal, the portal): the platform's maximum narrows the local one.
    await t.platform.cancel(w, {
      clientDateTime: new Date().toISOString(),
      channel: 'instore',
      cancelReason: 'Functional',
      cancelAmount: { amount: 2_000, currency: 'EUR' },
      instrument: { instrumentType: 'walletA' },
    });
    const view = await t.service.allowedOperations(w);
    expect(view).toMatchObject({
      fromPlatform: true,
      cancel: { allowed: true, maxAmount: 3_000 },
      capture: { allowed: false },
    });
  });
});

type Recorder = (name: string, body: unknown) => void;

function recording(p: PaymentsPlatform, record: Recorder): PaymentsPlatform {
  return {
    process: (body, o) => (record('process', body), p.process(body, o)),
    capture: (id, body, o) => (record('capture', body), p.capture(id, body, o)),
    captureAll: (body, o) => (record('captureAll', body), p.captureAll(body, o)),
    refund: (id, body, o) => (record('refund', body), p.refund(id, body, o)),
    cancel: (id, body, o) => (record('cancel', body), p.cancel(id, body, o)),
    qrTerminalPayment: (body, o) => (record('qrTerminalPayment', body), p.qrTerminalPayment(body, o)),
    allowedOperations: p.allowedOperations.bind(p),
    status: p.status.bind(p),
    refundByWeb: (id, body, o) => (record('refundByWeb', body), p.refundByWeb(id, body, o)),
  };
}
