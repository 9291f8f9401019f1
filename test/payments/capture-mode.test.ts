import { describe, expect, it } from 'vitest';
import { configSchema, loadConfig } from '../../src/config/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { testSimProfile } from '../helpers/demo-platform.js';

// payments.captureMode (docs/payments.md, "Capture, cancel, refund"; docs/operations.md):
// by default the terminal captures nothing by itself and the platform's answer says whether
// a sale is captured; a merchant configured to capture at the terminal has an authorization
// the platform shows not captured captured at once. A capture refused because the platform
// had captured already is recorded as captured.

const fixture = useDemoPlatform();
let t: Terminal;

const ALREADY_CAPTURED = {
  status: 409,
  errorCode: 'CAPTURE_NOT_ALLOWED',
  errorMessage: 'the transaction is already captured',
  afterRecord: true,
  times: 1,
} as const;

function captureRows(id: string) {
  return t.service.list().filter((v) => v.kind === 'capture' && v.relatedClientTransactionId === id);
}

describe('capture mode from configuration and from what the platform reports', () => {
  it('the default captures nothing itself: an authorization-only merchant (m-1002) stays authorized, the capturing acquirer (m-1001) shows captured', async () => {
    expect(configSchema.parse({}).payments.captureMode).toBe('deferred');
    t = await fixture.startTerminal();
    const books = await (
      await t.service.startSale({ method: 'card', amount: 2100, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(books).toMatchObject({ state: 'approved', platformStatus: 'Accepted', capturedAmount: 0 });
    expect(captureRows(books.clientTransactionId)).toEqual([]);
    expect(fixture.demo.platform.payments.transaction(books.clientTransactionId)?.transactionStatus).toBe('Accepted');
    const coffee = await (await t.service.startSale({ method: 'card', amount: 2200, currency: 'EUR' })).done;
    expect(coffee).toMatchObject({ state: 'approved', capturedAmount: 2200 });
    expect(captureRows(coffee.clientTransactionId)).toEqual([]);
  });

  it('per merchant: {default: deferred, merchants: {"Demo Books": immediate}} captures a sale named by the platform id m-1002 at once; the default merchant is left to the platform', async () => {
    t = await fixture.startTerminal({
      config: { payments: { captureMode: { default: 'deferred', merchants: { 'Demo Books': 'immediate' } } } },
    });
    const books = await (
      await t.service.startSale({ method: 'card', amount: 2300, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(books).toMatchObject({ state: 'approved', capturedAmount: 2300 });
    expect(captureRows(books.clientTransactionId)).toMatchObject([{ state: 'approved', amount: 2300 }]);
    expect(fixture.demo.platform.payments.netCharged(books.clientTransactionId, 'm-1002')).toBe(2300);
  });

  it('a merchant configured deferred is never captured by the terminal, even with an immediate default', async () => {
    t = await fixture.startTerminal({
      config: { payments: { captureMode: { default: 'immediate', merchants: { 'terminal-app-1002': 'deferred' } } } },
    });
    const books = await (
      await t.service.startSale({ method: 'card', amount: 2400, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(books).toMatchObject({ state: 'approved', capturedAmount: 0 });
    expect(captureRows(books.clientTransactionId)).toEqual([]);
  });

  it('a configuration file of the old shape keeps working: "immediate" applies to every merchant', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'immediate' } } });
    const books = await (
      await t.service.startSale({ method: 'card', amount: 2500, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(books).toMatchObject({ state: 'approved', capturedAmount: 2500 });
  });

  it('the environment sets it as a word or as the JSON object', () => {
    const dir = tempDir('capture-mode-');
    try {
      const word = loadConfig({ cwd: dir.dir, env: { TERMINAL_AGENT_PAYMENTS__CAPTURE_MODE: 'immediate' } }).config
        .payments.captureMode;
      expect(word).toBe('immediate');
      const map = loadConfig({
        cwd: dir.dir,
        env: { TERMINAL_AGENT_PAYMENTS__CAPTURE_MODE: '{"merchants":{"m-1002":"immediate"}}' },
      }).config.payments.captureMode;
      expect(map).toEqual({ default: 'deferred', merchants: { 'm-1002': 'immediate' } });
    } finally {
      dir.cleanup();
    }
  });

  it('an unreadable setting is refused naming the key and the values', () => {
    const bad = configSchema.safeParse({ payments: { captureMode: { default: 'later' } } });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/captureMode/);
    expect(
      configSchema.safeParse({ payments: { captureMode: { merchants: { 'm-1002': 'sometimes' } } } }).success,
    ).toBe(false);
  });
});

describe('a capture the platform refuses because it captured already', () => {
  it('from the counter: the sale is recorded captured, so refund is offered and cancel refused; the clerk is told it was captured already', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 2600, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    fixture.demo.platform.faults.set('capture', ALREADY_CAPTURED);
    await expect(t.service.capture(sale.clientTransactionId)).rejects.toMatchObject({
      code: 'PAYMENT_STATE',
      message: /captured already/,
      details: { reasonCode: 'ALREADY_CAPTURED' },
    });
    const after = await t.service.get(sale.clientTransactionId);
    expect(after).toMatchObject({ state: 'approved', capturedAmount: 2600 });
    expect(after.message).not.toMatch(/not captured yet/);
    const allowed = await t.service.allowedOperations(sale.clientTransactionId);
    expect(allowed.refund.allowed).toBe(true);
    expect(allowed.cancel).toMatchObject({ allowed: false });
    // The capture request itself did nothing: its row is not counted as a capture of this terminal.
    expect(captureRows(sale.clientTransactionId)).toMatchObject([{ state: 'failed', message: /captured already/ }]);
  });

  it('immediate capture: the sale ends captured, with no "capture it later"', async () => {
    t = await fixture.startTerminal({
      config: { payments: { captureMode: { merchants: { 'm-1002': 'immediate' } } } },
    });
    fixture.demo.platform.faults.set('capture', ALREADY_CAPTURED);
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 2700, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    expect(sale).toMatchObject({ state: 'approved', capturedAmount: 2700 });
    expect(sale.message).not.toMatch(/capture it later|capture failed/);
  });

  it('captured at the platform behind the journal: a capture from the counter ends captured in both profiles (strict refuses a second capture outright)', async () => {
    t = await fixture.startTerminal({ config: { payments: { captureMode: 'deferred' } } });
    const sale = await (
      await t.service.startSale({ method: 'card', amount: 2800, currency: 'EUR', merchantId: 'm-1002' })
    ).done;
    // Another system (a back office, another terminal) captured it: the journal does not know.
    await t.platform.capture(
      sale.clientTransactionId,
      {
        clientDateTime: new Date().toISOString(),
        channel: 'instore',
        captureAmount: { amount: 2800, currency: 'EUR' },
      },
      { merchantId: 'm-1002' },
    );
    const answer = t.service.capture(sale.clientTransactionId);
    if (testSimProfile() === 'strict')
      await expect(answer).rejects.toMatchObject({
        code: 'PAYMENT_STATE',
        details: { reasonCode: 'ALREADY_CAPTURED' },
      });
    else await expect(answer).resolves.toMatchObject({ state: 'approved' });
    expect((await t.service.get(sale.clientTransactionId)).capturedAmount).toBe(2800);
    expect(fixture.demo.platform.payments.netCharged(sale.clientTransactionId, 'm-1002')).toBe(2800);
  });
});

describe('capture of all pending authorizations naming a merchant', () => {
  it("a merchant that is not one of the terminal's is refused like a sale (AUTH_NO_MERCHANT, field merchantId): no journal row, nothing asked of the platform", async () => {
    t = await fixture.startTerminal();
    const before = t.service.list().length;
    await expect(t.service.captureAll('no-such-merchant')).rejects.toMatchObject({
      code: 'AUTH_NO_MERCHANT',
      details: { field: 'merchantId' },
      message: expect.stringMatching(/no-such-merchant is not one of this terminal's merchants: nothing was captured/),
    });
    expect(t.service.list()).toHaveLength(before);
  });
});
