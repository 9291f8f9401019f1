import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../src/auth/index.js';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import {
  PlatformClient,
  isNotFound,
  isPlatformError,
  type BearerProvider,
  type PlatformError,
  type ProcessRequest,
} from '../../src/platform/index.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import {
  dispatchersOf,
  grantStats,
  identityOf,
  immediateCaptureStatus,
  startDemo,
  testSimProfile,
  type Demo,
} from '../helpers/demo-platform.js';

let demo: Demo;
let auth: AuthService;
let dispatchers: HostDispatchers;
let client: PlatformClient;
const extra: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  demo = await startDemo({ walletPayDelayMs: 0 });
  const identity = identityOf('device');
  dispatchers = dispatchersOf(identity, { connectTimeoutMs: 2_000, headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000 });
  auth = new AuthService({
    identity,
    endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
    dispatchers,
    settings: {
      mode: 'client_credentials',
      refreshRatio: 0.8,
      leewaySeconds: 30,
      backoffBaseMs: 20,
      backoffCapMs: 200,
    },
    log: demo.log,
  });
  await auth.start();
  client = newClient(auth);
});
afterAll(async () => {
  auth?.stop();
  await dispatchers?.close();
  for (const x of extra) await x.close();
  await demo?.close();
});
afterEach(() => {
  demo.platform.faults.clear();
});

function newClient(
  tokens: BearerProvider,
  over: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {},
): PlatformClient {
  return new PlatformClient({
    baseUrl: demo.apiUrl,
    dispatchers,
    tokens,
    log: demo.log,
    getRetry: { retries: 2, backoff: { baseMs: 10, capMs: 50 }, maxRetryAfterMs: 1_000 },
    ...over,
  });
}

const now = (): string => new Date().toISOString();
const id = (p: string): string => `${p}-${randomUUID().slice(0, 18)}`;
const eur = (amount: number) => ({ amount, currency: 'EUR' });

function cardSale(over: Partial<ProcessRequest> = {}): ProcessRequest {
  return {
    clientDateTime: now(),
    channel: 'instore',
    clientNewTransactionId: id('card'),
    authorizationAmount: eur(1250),
    entryMode: 'ContactChip',
    instrument: {
      instrumentType: 'card',
      card: {
        maskedPan: '476173******0010',
        scheme: 'VISA',
        expiry: '12/29',
        encryptedData: 'ENC-3f9a0c11d2',
        ksn: 'FFFF9876543210E00001',
      },
    },
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<PlatformError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isPlatformError(err)) throw new Error(`expected a PlatformError, got ${String(err)}`);
  return err;
}

describe('every endpoint against the demo platform', () => {
  it('process (card, immediate capture) and status by client and server id', async () => {
    const sale = cardSale();
    const rec = await client.process(sale);
    expect(rec).toMatchObject({
      transactionType: 'Payment',
      transactionStatus: immediateCaptureStatus(),
      clientTransactionId: sale.clientNewTransactionId,
      merchantId: 'm-1001',
    });
    // Event types the agent does not know (the strict platform adds one) are kept, never fatal.
    expect(rec.events.map((e) => e.eventType).filter((type) => String(type).startsWith('card'))).toEqual([
      'cardRequest',
      'cardAuthorizationResult',
      'cardCaptureResult',
    ]);
    const byClient = await client.status(sale.clientNewTransactionId);
    const byServer = await client.status(rec.serverTransactionId);
    expect(byClient.serverTransactionId).toBe(rec.serverTransactionId);
    expect(byServer.clientTransactionId).toBe(sale.clientNewTransactionId);
    // Unknown fields are kept (lenient reading): the event's source carries what the spec lists and more.
    expect(byServer.events[0]?.source).toMatchObject({ sourceType: 'instore', physicalDeviceId: 'TA-0001' });
  });

  it('allowedOperations, refund and refundByWeb', async () => {
    const sale = cardSale();
    const rec = await client.process(sale);
    // A captured card sale: the one record is the refund's (the path takes no query).
    const allowed = await client.allowedOperations(rec.serverTransactionId);
    expect(allowed).toMatchObject({ allowed: true, maxAmount: 1250, currency: 'EUR' });
    const refund = await client.refund(rec.serverTransactionId, {
      clientDateTime: now(),
      channel: 'instore',
      clientNewTransactionId: id('refund'),
      refundAmount: eur(250),
      instrument: { instrumentType: 'card' },
    });
    expect(refund).toMatchObject({ transactionType: 'Refund', relatedServerTransactionId: rec.serverTransactionId });
    const byWeb = await client.refundByWeb(sale.clientNewTransactionId, {
      clientDateTime: now(),
      clientNewTransactionId: id('web'),
      amount: eur(1000),
    });
    expect(['Cancel', 'Refund']).toContain(byWeb.transactionType);
    expect(byWeb.relatedServerTransactionId).toBe(rec.serverTransactionId);
  });

  it('deferred capture (m-1002): process, capture, cancel with approval code, captureAll', async () => {
    const m = { merchantId: 'm-1002' };
    const a = await client.process(cardSale({ authorizationAmount: eur(4000) }), m);
    expect(a).toMatchObject({ transactionStatus: 'Accepted', merchantId: 'm-1002' });
    const captured = await client.capture(
      a.serverTransactionId,
      { clientDateTime: now(), channel: 'instore', captureAmount: eur(4000) },
      m,
    );
    // `Captured`, or `Accepted` under the strict profile: the capture event says what was captured.
    // The amount as `amount`, or (strict) as a `value` string in its place.
    const captureAmount = captured.events?.filter((e) => /capture/i.test(`${e.eventType as string | undefined}`)).at(-1)
      ?.captureAmount as { amount?: number; value?: string; currency?: string } | undefined;
    expect(captureAmount?.currency).toBe('EUR');
    expect(captureAmount?.amount ?? Number(captureAmount?.value)).toBe(4000);

    const b = await client.process(cardSale({ authorizationAmount: eur(700) }), m);
    const cancel = await client.cancel(
      b.serverTransactionId,
      {
        clientDateTime: now(),
        channel: 'instore',
        cancelReason: 'Functional',
        cancelAmount: eur(700),
        instrument: { instrumentType: 'card' },
        approvalCode: '4711',
      },
      m,
    );
    expect(cancel).toMatchObject({ transactionType: 'Cancel', relatedServerTransactionId: b.serverTransactionId });

    const c = await client.process(cardSale({ authorizationAmount: eur(300) }), m);
    const all = await client.captureAll({ clientDateTime: now(), channel: 'instore' }, m);
    expect(all.transactions.map((t) => t.serverTransactionId)).toContain(c.serverTransactionId);
  });

  it('wallet consumer scan and the terminal-initiated QR payment', async () => {
    const qr = await client.process({
      clientDateTime: now(),
      channel: 'instore',
      clientNewTransactionId: id('qr'),
      authorizationAmount: eur(990),
      instrument: { instrumentType: 'walletA', paymentScenario: 'ConsumerScan' },
    });
    expect(qr.transactionStatus).toBe('Initialized');
    expect(qr.events.at(-1)?.resultData).toBeDefined();
    const scanned = await client.qrTerminalPayment({
      paymentType: 'walletA',
      paymentScenario: 'MerchantScan',
      scannedPaymentId: '281012345678901234',
      clientTransactionId: id('scan'),
      paymentAmount: eur(450),
      order: { orderId: 'order-1', orderDescription: 'Coffee' },
    });
    expect(scanned).toMatchObject({ transactionStatus: expect.any(String) });
  });

  it('countries and isAvailable', async () => {
    const list = await client.countries();
    expect(list.length).toBeGreaterThan(0);
    expect(list[0]).toMatchObject({ code: expect.stringMatching(/^[A-Z]{2}$/), display: expect.any(String) });
    expect(await client.isAvailable()).toBe(true);
  });
});

describe('platform refusals', () => {
  it('an unknown transaction is a rejected 404 (the strict platform: 400) the payments layer can recognise', async () => {
    const err = await failure(client.status('no-such-transaction'));
    const strict = testSimProfile() === 'strict';
    expect(err).toMatchObject({
      category: 'rejected',
      status: strict ? 400 : 404,
      errorCode: strict ? 'INVALID_TRANSACTION_ID' : 'TRANSACTION_NOT_FOUND',
      outcomeUnknown: false,
    });
    expect(isNotFound(err)).toBe(true);
  });

  it('a payment rule refusal carries the platform errorCode and errorMessage', async () => {
    const rec = await client.process(cardSale());
    const err = await failure(
      client.refund(rec.serverTransactionId, {
        clientDateTime: now(),
        channel: 'instore',
        clientNewTransactionId: id('r'),
        refundAmount: eur(999_999),
        instrument: { instrumentType: 'card' },
      }),
    );
    expect(err).toMatchObject({ category: 'rejected', outcomeUnknown: false, code: 'PLATFORM_REJECTED' });
    expect(err.status).toBeGreaterThanOrEqual(400);
    expect(err.errorCode).toEqual(expect.any(String));
    expect(err.message).toContain(err.errorCode as string);
  });

  it('a bad request body never leaves: a full PAN in maskedPan', async () => {
    const before = demo.platform.payments.ledger().length;
    const sale = cardSale({
      instrument: { instrumentType: 'card', card: { maskedPan: '4761730000000010', scheme: 'VISA' } },
    });
    const err = (await client.process(sale).catch((e: unknown) => e)) as Error & { code: string; toJSON(): unknown };
    expect(err).toMatchObject({ code: 'PLATFORM_BAD_REQUEST' });
    expect(err.message).toContain('instrument.card.maskedPan');
    expect(`${err.message} ${JSON.stringify(err.toJSON())}`).not.toContain('4761730000000010');
    expect(demo.platform.payments.ledger().length).toBe(before);
  });
});

describe('tokens during calls', () => {
  it('token expiry during a call: 401, one refresh, the call retried once and done once', async () => {
    const before = await grantStats(demo);
    // The platform's clock moves 10 minutes ahead: our access token has expired there.
    demo.platform.faults.clockOffsetMs = 600_000;
    const sale = cardSale();
    const rec = await client.process(sale);
    expect(rec.transactionStatus).toBe(immediateCaptureStatus());
    const after = await grantStats(demo);
    expect((after.granted.refresh_token ?? 0) - (before.granted.refresh_token ?? 0)).toBe(1);
    expect(demo.platform.payments.netCharged(sale.clientNewTransactionId)).toBe(1250);
    expect(auth.status().clockSkew?.exceedsLeeway).toBe(true);
    demo.platform.faults.clockOffsetMs = 0;
    await auth.refreshNow();
  });

  it('a token bound to another certificate is refused (401) and not retried more than once', async () => {
    // A certificate-bound token is needed: the strict profile issues none (no cnf without the
    // auth scope, docs/platform-contract.md, "Tokens"), so a new grant is asked of the standard one.
    const profile = demo.platform.context.profile.name;
    demo.platform.context.profile.set('standard');
    auth.replaceIdentity(identityOf('device'));
    try {
      // TA-9999's certificate (same platform CA) carries a token bound to TA-0001's.
      const other = dispatchersOf(identityOf('unknown'));
      extra.push(other);
      let invalidations = 0;
      const tokens: BearerProvider = {
        tokenFor: (m) => auth.tokenFor(m),
        invalidate: (m, t) => {
          invalidations++;
          auth.invalidate(m, t);
        },
      };
      const c = newClient(tokens, { dispatchers: other });
      const err = await failure(c.status('anything'));
      expect(err).toMatchObject({ category: 'auth', status: 401, code: 'PLATFORM_AUTH', outcomeUnknown: false });
      expect(err.errorMessage).toMatch(/bound to another client certificate/);
      expect(invalidations).toBe(1);
    } finally {
      demo.platform.context.profile.set(profile);
      auth.replaceIdentity(identityOf('device'));
    }
  });

  it('no token to be had: the call never leaves, category auth or network', async () => {
    const noToken: BearerProvider = {
      tokenFor: () => Promise.reject(Object.assign(new Error('x'), {})),
      invalidate: () => {},
    };
    const err = await failure(newClient(noToken).process(cardSale()));
    expect(err).toMatchObject({ category: 'auth', outcomeUnknown: false });
  });

  it('no token for a merchant the terminal does not serve: the call never leaves, AUTH_NO_MERCHANT kept with its words', async () => {
    const notOurs: BearerProvider = {
      tokenFor: (m) =>
        Promise.reject(
          new AgentError(ErrorCodes.AUTH_NO_MERCHANT, `merchant ${m ?? ''} is not one of this terminal's merchants`),
        ),
      invalidate: () => {},
    };
    const err = await failure(newClient(notOurs).process(cardSale(), { merchantId: 'm-nobody' }));
    expect(err).toMatchObject({
      category: 'auth',
      code: 'AUTH_NO_MERCHANT',
      outcomeUnknown: false,
      message: "no access token for process: merchant m-nobody is not one of this terminal's merchants",
    });
  });
});

describe('platform down, slow, failing', () => {
  const fixedToken: BearerProvider = { tokenFor: async () => 'not-a-real-token', invalidate: () => {} };

  it('down (connection refused): network, never reached', async () => {
    const port = await closedPort();
    const c = newClient(fixedToken, { baseUrl: `https://127.0.0.1:${port}` });
    const err = await failure(c.process(cardSale()));
    expect(err).toMatchObject({ category: 'network', outcomeUnknown: false, transportCode: 'ECONNREFUSED' });
    expect(await c.isAvailable()).toBe(false);
  });

  it('slow beyond the headers timeout on a write: timeout, outcome unknown', async () => {
    demo.platform.faults.set('process', { latencyMs: 1_500, times: 1 });
    const sale = cardSale();
    const err = await failure(client.process(sale));
    expect(err).toMatchObject({
      category: 'timeout',
      outcomeUnknown: true,
      code: 'PLATFORM_TIMEOUT',
      transportCode: 'UND_ERR_HEADERS_TIMEOUT',
    });
  });

  it('5xx after the platform recorded a write: server, outcome unknown; the lookup finds it', async () => {
    demo.platform.faults.set('process', { status: 500, afterRecord: true, times: 1 });
    const sale = cardSale();
    const err = await failure(client.process(sale));
    expect(err).toMatchObject({ category: 'server', status: 500, outcomeUnknown: true, errorCode: 'INJECTED_FAULT' });
    expect((await client.status(sale.clientNewTransactionId)).transactionStatus).toBe(immediateCaptureStatus());
  });

  it('a 5xx on a write is never retried by the client', async () => {
    demo.platform.faults.set('process', { status: 503, times: 1, retryAfterSeconds: 1 });
    const sale = cardSale();
    const err = await failure(client.process(sale));
    expect(err).toMatchObject({ category: 'server', status: 503, outcomeUnknown: true, retryAfterMs: 1_000 });
    expect(demo.platform.payments.transaction(sale.clientNewTransactionId)).toBeUndefined();
  });

  it('connection dropped after the platform recorded a write: outcome unknown', async () => {
    demo.platform.faults.set('process', { drop: 'after', times: 1 });
    const sale = cardSale();
    const err = await failure(client.process(sale));
    expect(err).toMatchObject({ category: 'network', outcomeUnknown: true });
    expect((await client.status(sale.clientNewTransactionId)).transactionStatus).toBe(immediateCaptureStatus());
  });

  it('GETs are retried after 5xx and dropped connections, then succeed', async () => {
    const rec = await client.process(cardSale());
    demo.platform.faults.set('status', { status: 503, times: 1 });
    expect((await client.status(rec.serverTransactionId)).serverTransactionId).toBe(rec.serverTransactionId);
    demo.platform.faults.set('status', { drop: 'before', times: 2 });
    expect((await client.status(rec.serverTransactionId)).serverTransactionId).toBe(rec.serverTransactionId);
  });

  it('GETs give up after their retries: server error, outcome known (a read has none)', async () => {
    demo.platform.faults.set('countries', { status: 502 });
    const err = await failure(client.countries());
    expect(err).toMatchObject({ category: 'server', status: 502, outcomeUnknown: false });
  });

  it('an error body that is empty or not JSON still gives a clear error', async () => {
    demo.platform.faults.set('process', { status: 502, rawBody: '', times: 1 });
    const empty = await failure(client.process(cardSale()));
    expect(empty).toMatchObject({ category: 'server', status: 502, errorCode: undefined });
    expect(empty.message).toContain('HTTP 502');
    demo.platform.faults.set('process', { status: 400, rawBody: '<html><body>Bad Request</body></html>', times: 1 });
    const html = await failure(client.process(cardSale()));
    expect(html).toMatchObject({ category: 'rejected', status: 400, errorCode: undefined, outcomeUnknown: false });
  });

  it('isAvailable: false on a 503 and on an answer slower than its budget', async () => {
    demo.platform.faults.set('isAvailable', { status: 503, times: 1 });
    expect(await client.isAvailable()).toBe(false);
    const slow = newClient(auth, { availabilityTimeoutMs: 300 });
    demo.platform.faults.set('isAvailable', { latencyMs: 1_000, times: 1 });
    expect(await slow.isAvailable()).toBe(false);
    expect(await client.isAvailable()).toBe(true);
  });
});

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
