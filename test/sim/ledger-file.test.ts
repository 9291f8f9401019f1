import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import { testSimProfile } from '../helpers/demo-platform.js';
import {
  cardSale,
  isoNow,
  newId,
  startPaymentsHarness,
  walletSale,
  type PaymentsHarness,
} from './payment-endpoints.js';
import { until } from '../helpers/wait.js';

/**
 * The demo platform's ledger file (docs/demo-platform.md, "Demo platform", ledger file): a
 * platform started again on the same file knows every earlier transaction, its money and
 * its idempotency; the file holds no card data beyond the masked PAN.
 */
const base = '/payment/v1/transactions';
const tmp = tempDir('demo-ledger-');
const file = join(tmp.dir, 'demo-platform-ledger.json');
let open: PaymentsHarness[] = [];

async function start(profile = testSimProfile()): Promise<PaymentsHarness> {
  const h = await startPaymentsHarness({ walletPayDelayMs: 0, profile }, { stateFile: file });
  open.push(h);
  return h;
}
async function stop(h: PaymentsHarness): Promise<void> {
  await h.close();
  open = open.filter((x) => x !== h);
}
afterEach(async () => {
  for (const h of open) await h.close();
  open = [];
});

const refundBody = (amount: number, instrumentType = 'card'): Record<string, unknown> => ({
  clientDateTime: isoNow(),
  channel: 'instore',
  clientNewTransactionId: newId('refund'),
  refundAmount: { amount, currency: 'EUR' },
  instrument: { instrumentType },
});
/** The `result` of a refund record's result event, undefined while it has none. */
function resultOf(record: unknown): string | undefined {
  const events = (record as { events?: Array<{ eventType?: unknown; result?: unknown }> } | undefined)?.events ?? [];
  const result = events.find((e) => typeof e.eventType === 'string' && /RefundResult$/.test(e.eventType))?.result;
  return typeof result === 'string' ? result : undefined;
}

const m1002 = (h: PaymentsHarness): { token: string } => ({ token: h.token({ merchantId: 'm-1002' }) });

describe('demo platform ledger file', () => {
  it('after a restart: refunds an earlier sale, captures an earlier authorization, refunds a web order by web, repeats are idempotent; no card data on disk', async () => {
    const encryptedData = randomBytes(24).toString('hex').toUpperCase();
    const pinblock = randomBytes(8).toString('hex').toUpperCase();
    const first = await start();
    const sale = cardSale({ ksn: 'FFFF9876543210E00002', pinblock, pinblockFormat: 'ISO0' });
    (sale.instrument as { card: Record<string, string> }).card.encryptedData = encryptedData;
    const sold = await first.call('POST', `${base}/process`, sale);
    expect(sold.status, sold.text).toBe(200);
    const auth = cardSale({ authorizationAmount: { amount: 4_000, currency: 'EUR' } });
    expect((await first.call('POST', `${base}/process`, auth, m1002(first))).status).toBe(200);
    const web = await first.call('POST', '/sim/control/web-orders', { amount: { amount: 3_100, currency: 'EUR' } });
    expect(web.status).toBe(201);
    const qr = await first.call('POST', `${base}/process`, walletSale('walletA', 'ConsumerScan'));
    expect(qr.body.transactionStatus).toBe('Initialized');
    const before = first.platform.payments.ledger();
    await stop(first);

    const bytes = readFileSync(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const secret of [encryptedData, pinblock, 'encryptedData', 'pinblock'])
      expect(bytes.includes(secret), secret).toBe(false);
    expect(bytes.includes('476173******0010')).toBe(true); // the masked PAN the records show

    const second = await start();
    expect(second.platform.payments.ledger()).toEqual(before);
    const saleId = sale.clientNewTransactionId as string;
    const refund = await second.call('POST', `${base}/${saleId}/refund`, refundBody(500));
    expect(refund.status, refund.text).toBe(200);
    await until(
      `${saleId} net 750 on the restarted platform`,
      () => second.platform.payments.netCharged(saleId),
      (net) => net === 750,
    );
    // The same request again is the same sale; the same id for another amount is a conflict.
    const again = await second.call('POST', `${base}/process`, sale);
    expect(again.status).toBe(200);
    expect(again.body.serverTransactionId).toBe(sold.body.serverTransactionId);
    expect(
      (await second.call('POST', `${base}/process`, { ...sale, authorizationAmount: { amount: 999, currency: 'EUR' } }))
        .status,
    ).toBe(409);
    const capture = await second.call(
      'POST',
      `${base}/${auth.clientNewTransactionId as string}/capture`,
      { clientDateTime: isoNow(), channel: 'instore', captureAmount: { amount: 4_000, currency: 'EUR' } },
      m1002(second),
    );
    expect(capture.status, capture.text).toBe(200);
    const byWeb = await second.call('POST', `${base}/${web.body.serverTransactionId as string}/refundbyweb`, {
      clientDateTime: isoNow(),
      clientNewTransactionId: newId('web'),
      amount: { amount: 3_100, currency: 'EUR' },
    });
    expect(byWeb.status, byWeb.text).toBe(200);
    // The wallet payment still waits for its consumer, who pays now.
    expect(second.platform.payments.wallet.pay(qr.body.serverTransactionId).transactionStatus).toBe('Accepted');
    await until(
      'the web order given back on the restarted platform',
      () => second.platform.payments.netCharged(web.body.clientTransactionId),
      (net) => net === 0,
    );
    const after = second.platform.payments.ledger();
    await stop(second);

    // A third start sees everything the second one did.
    const third = await start();
    expect(third.platform.payments.ledger()).toEqual(after);
    expect(third.platform.payments.transaction(saleId)?.transactionStatus).toBe(sold.body.transactionStatus);
  });

  it('a refund still pending when the platform stopped (strict profile) completes after the restart', async () => {
    const first = await start('strict');
    const sale = cardSale();
    expect((await first.call('POST', `${base}/process`, sale)).status).toBe(200);
    const refund = await first.call('POST', `${base}/${sale.clientNewTransactionId as string}/refund`, refundBody(250));
    // Answered Accepted before its result event: the result comes later.
    expect(refund.body.transactionStatus).toBe('Accepted');
    expect(resultOf(refund.body)).toBeUndefined();
    await stop(first);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { completions: unknown[] }).completions).toHaveLength(1);
    const second = await start('strict');
    await until(
      "the refund's result on the restarted platform",
      () => resultOf(second.platform.payments.transaction(refund.body.serverTransactionId)),
      (result) => result !== undefined,
    );
    expect(resultOf(second.platform.payments.transaction(refund.body.serverTransactionId))).toBe('Accepted');
    expect(second.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(1_000);
  });

  it('a refund whose result is to fail (strict profile) still fails after a restart: nothing is given back, it can be refunded again', async () => {
    const first = await start('strict');
    const sale = cardSale();
    expect((await first.call('POST', `${base}/process`, sale)).status).toBe(200);
    first.platform.payments.failNext(1);
    const refund = await first.call('POST', `${base}/${sale.clientNewTransactionId as string}/refund`, refundBody(250));
    expect(refund.body.transactionStatus).toBe('Accepted');
    await stop(first);
    const second = await start('strict');
    await until(
      "the refund's result on the restarted platform",
      () => resultOf(second.platform.payments.transaction(refund.body.serverTransactionId)),
      (result) => result !== undefined,
    );
    expect(resultOf(second.platform.payments.transaction(refund.body.serverTransactionId))).toBe('Failed');
    expect(second.platform.payments.transaction(refund.body.serverTransactionId)?.transactionStatus).toBe('Accepted');
    expect(second.platform.payments.netCharged(sale.clientNewTransactionId as string)).toBe(1_250);
    const again = await second.call(
      'POST',
      `${base}/${sale.clientNewTransactionId as string}/refund`,
      refundBody(1_250),
    );
    expect(again.status).toBe(200);
  });

  it('a damaged ledger file stops the start with a message that says what to do; no file starts empty', async () => {
    writeFileSync(file, '{"version":1,"transactions":[', { mode: 0o600 });
    await expect(start()).rejects.toThrow(/ledger .* is damaged; move it away to start the demo platform empty/);
    rmSync(file);
    const fresh = await start();
    expect(fresh.platform.payments.ledger()).toEqual([]);
  });
});
