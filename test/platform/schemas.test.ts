import { describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import {
  PlatformClient,
  allowedOperations,
  checkRequest,
  processRequest,
  readResponse,
  transactionRecord,
  writeRecord,
  captureAllResponse,
  type BearerProvider,
} from '../../src/platform/index.js';
import { silentLogger } from '../../src/core/logger.js';

const read = (value: unknown) => readResponse(transactionRecord, value, { operation: 'status', method: 'GET' }, 200);

describe('responses are read leniently', () => {
  it('keeps unknown fields, at the top and inside events', () => {
    const rec = read({
      serverTransactionId: 's-1',
      transactionStatus: 'Accepted',
      futureField: { nested: true },
      events: [{ eventType: 'cardAuthorizationResult', result: 'Accepted', acquirerReference: 'A-77' }],
    });
    expect(rec.futureField).toEqual({ nested: true });
    expect(rec.events[0]?.acquirerReference).toBe('A-77');
  });

  it('tolerates missing optional fields (no events: an empty history)', () => {
    expect(read({ serverTransactionId: 's-1', transactionStatus: 'Initialized' })).toEqual({
      serverTransactionId: 's-1',
      transactionStatus: 'Initialized',
      events: [],
    });
  });

  it('keeps status values it does not know as they are', () => {
    expect(read({ serverTransactionId: 's', transactionStatus: 'PartiallyRefunded' }).transactionStatus).toBe(
      'PartiallyRefunded',
    );
  });

  it('an essential of a write missing, null or of the wrong type makes the answer unreadable, naming the field: the write may have taken effect', () => {
    const write = (value: unknown) => readResponse(writeRecord, value, { operation: 'process', method: 'POST' }, 200);
    let err: unknown;
    try {
      write({ serverTransactionId: 's', transactionStatus: 7 });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'PLATFORM_BAD_RESPONSE', category: 'server', outcomeUnknown: true, status: 200 });
    expect((err as Error).message).toMatch(/transactionStatus: expected a string/);
    expect(() => write({ serverTransactionId: null, transactionStatus: 'Accepted' })).toThrow(/serverTransactionId/);
    expect(() => write({ transactionStatus: 'Accepted' })).toThrow(/serverTransactionId/);
    expect(() => write({ serverTransactionId: 's', transactionStatus: '' })).toThrow(
      /transactionStatus: must not be empty/,
    );
    expect(() =>
      readResponse(allowedOperations, { allowed: 'yes' }, { operation: 'allowedOperations', method: 'GET' }, 200),
    ).toThrow(/allowed:/);
  });

  it('the status call needs only the status: a server id that is absent or null reads as absent', () => {
    expect(read({ transactionStatus: 'Accepted', serverTransactionId: null })).toEqual({
      transactionStatus: 'Accepted',
      events: [],
    });
    expect(read({ transactionStatus: 'cancelled' })).toEqual({ transactionStatus: 'cancelled', events: [] });
    expect(() => read({ serverTransactionId: 's', transactionStatus: null })).toThrow(/transactionStatus/);
  });

  it('null in every field that is not essential, unknown fields and unknown event types are kept as sent, never fatal', () => {
    const answer = {
      transactionType: null,
      serverTransactionId: 's-1',
      clientTransactionId: null,
      relatedServerTransactionId: null,
      transactionStatus: 'Accepted',
      tenantId: null,
      merchantAggregatorId: null,
      merchantId: null,
      platformTraceId: 'x',
      extensions: { riskProfile: { level: 'low' }, settlementBatch: null },
      events: [
        {
          eventType: 'cardRequest',
          serverProcessingDateTime: '1/5/2026 9:07:03 PM',
          instrument: { instrumentType: 'card', walletId: null },
          source: null,
          requestor: null,
          resultMessage: null,
        },
        { eventType: 'platformRiskAssessment', result: 'Passed', riskScore: 12, resultData: null },
        {
          eventType: 'cardCaptureResult',
          result: 'Accepted',
          resultMessage: 7,
          captureAmount: { value: '1250', currency: 'EUR' },
          resultData: { providerExtension: { schemaVersion: 3 } },
        },
      ],
    };
    const rec = readResponse(writeRecord, answer, { operation: 'process', method: 'POST' }, 200);
    expect(rec).toEqual(answer);
  });

  it('events that are null or not a list read as none; elements that are not objects are dropped', () => {
    expect(read({ transactionStatus: 'Accepted', events: null }).events).toEqual([]);
    expect(read({ transactionStatus: 'Accepted', events: { eventType: 'x' } }).events).toEqual([]);
    expect(read({ transactionStatus: 'Accepted', events: [null, 'x', { eventType: 'y' }] }).events).toEqual([
      { eventType: 'y' },
    ]);
  });

  it('allowed operations: only `allowed` is essential; maxAmount as an integer or a string of digits, nulls read as absent', () => {
    const allowed = (value: unknown) =>
      readResponse(allowedOperations, value, { operation: 'allowedOperations', method: 'GET' }, 200);
    expect(
      allowed({ allowed: true, maxAmount: null, currency: null, operation: null, operations: null, reason: null }),
    ).toEqual({ allowed: true, reason: null });
    expect(allowed({ allowed: true, maxAmount: '1250', currency: 'EUR' })).toEqual({
      allowed: true,
      maxAmount: 1250,
      currency: 'EUR',
    });
    expect(allowed({ allowed: false, maxAmount: 12.5 })).toEqual({ allowed: false });
    expect(
      allowed({
        allowed: true,
        operations: {
          cancel: { allowed: true, maxAmount: 500, reason: null },
          refund: null,
          capture: { allowed: 'no' },
        },
      }).operations,
    ).toEqual({
      cancel: { allowed: true, maxAmount: 500, reason: null },
    });
  });

  it("captureall: each record needs a write record's essentials", () => {
    const all = (value: unknown) =>
      readResponse(captureAllResponse, value, { operation: 'captureAll', method: 'POST' }, 200);
    expect(
      all({ transactions: [{ serverTransactionId: 's', transactionStatus: 'Captured', events: null }], batchId: null })
        .transactions,
    ).toHaveLength(1);
    expect(() => all({ transactions: [{ serverTransactionId: null, transactionStatus: 'Captured' }] })).toThrow(
      /transactions\.0\.serverTransactionId/,
    );
  });
});

describe('requests are checked strictly before they leave', () => {
  const base = {
    clientDateTime: '2030-01-01T10:00:00Z',
    channel: 'instore',
    clientNewTransactionId: 'c-1',
    authorizationAmount: { amount: 100, currency: 'EUR' },
    instrument: { instrumentType: 'card', card: { maskedPan: '476173******0010' } },
  };

  it('accepts card fields where docs/platform-contract.md ("Endpoints") places them and ISO 8601 dates with or without Z and milliseconds', () => {
    expect(checkRequest(processRequest, base, 'process')).toEqual(base);
    for (const d of ['2030-01-01T10:00:00.123Z', '2030-01-01T10:00:00', '2030-01-01T10:00:00+01:00']) {
      expect(() => checkRequest(processRequest, { ...base, clientDateTime: d }, 'process')).not.toThrow();
    }
  });

  it('refuses an amount that is not integer minor units', () => {
    expect(() =>
      checkRequest(processRequest, { ...base, authorizationAmount: { amount: 12.5, currency: 'EUR' } }, 'process'),
    ).toThrow(/authorizationAmount\.amount/);
  });

  it('refuses unknown fields (a typo would otherwise be dropped by the platform silently)', () => {
    expect(() => checkRequest(processRequest, { ...base, authorisationAmount: {} }, 'process')).toThrow(
      /PLATFORM_BAD_REQUEST|unrecognized|authorisationAmount/i,
    );
  });

  it('refuses a full card number where a masked one belongs, without echoing it', () => {
    let message = '';
    try {
      checkRequest(
        processRequest,
        { ...base, instrument: { instrumentType: 'card', card: { maskedPan: '4761739001010010' } } },
        'process',
      );
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('instrument.card.maskedPan');
    expect(message).not.toContain('4761739001010010');
  });
});

describe('a 2xx answer the client cannot read', () => {
  const tokens: BearerProvider = { tokenFor: async () => 't', invalidate: () => {} };
  const origin = 'https://platform.test';

  function clientWith(
    reply: { status: number; body: string },
    path: string,
    method = 'POST',
  ): { client: PlatformClient; agent: MockAgent } {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(origin)
      .intercept({ path, method })
      .reply(reply.status, reply.body, { headers: { 'content-type': 'application/json' } });
    return {
      client: new PlatformClient({
        baseUrl: origin,
        dispatchers: agent,
        tokens,
        log: silentLogger(),
        getRetry: { retries: 0 },
      }),
      agent,
    };
  }

  it('non-JSON after a write: PLATFORM_BAD_RESPONSE, outcome unknown', async () => {
    const { client, agent } = clientWith(
      { status: 200, body: '<html>ok</html>' },
      '/payment/v1/transactions/s-1/capture',
    );
    await expect(
      client.capture('s-1', {
        clientDateTime: '2030-01-01T10:00:00Z',
        channel: 'instore',
        captureAmount: { amount: 1, currency: 'EUR' },
      }),
    ).rejects.toMatchObject({ code: 'PLATFORM_BAD_RESPONSE', category: 'server', outcomeUnknown: true });
    await agent.close();
  });

  it('a wrong type in a read names the field, outcome known', async () => {
    const { client, agent } = clientWith(
      { status: 200, body: JSON.stringify([{ code: 'DE', display: 42 }]) },
      '/resources/v1/countries',
      'GET',
    );
    await expect(client.countries()).rejects.toMatchObject({
      code: 'PLATFORM_BAD_RESPONSE',
      outcomeUnknown: false,
      message: expect.stringMatching(/0\.display/),
    });
    await agent.close();
  });

  it('transaction ids are path-encoded', async () => {
    const { client, agent } = clientWith(
      { status: 200, body: JSON.stringify({ serverTransactionId: 'a/b', transactionStatus: 'Accepted' }) },
      '/payment/v1/transactions/a%2Fb%3F',
      'GET',
    );
    expect((await client.status('a/b?')).serverTransactionId).toBe('a/b');
    await agent.close();
  });
});
