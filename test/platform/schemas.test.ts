import { describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import {
  PlatformClient,
  allowedOperations,
  checkRequest,
  processRequest,
  readResponse,
  transactionRecord,
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
    expect(read({ serverTransactionId: 's', transactionStatus: 'PartiallyRefunded' }).transactionStatus).toBe('PartiallyRefunded');
  });

  it('names the field of a wrong type, and says a write may have taken effect', () => {
    let err: unknown;
    try {
      readResponse(transactionRecord, { serverTransactionId: 's', transactionStatus: 7 }, { operation: 'process', method: 'POST' }, 200);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'PLATFORM_BAD_RESPONSE', category: 'server', outcomeUnknown: true });
    expect((err as Error).message).toMatch(/transactionStatus: .*expected string/);
  });

  it('names nested fields by path', () => {
    expect(() => read({ serverTransactionId: 's', transactionStatus: 'A', events: [{}, { result: 1 }] })).toThrow(/events\.1\.result/);
    expect(() => readResponse(allowedOperations, { allowed: 'yes' }, { operation: 'allowedOperations', method: 'GET' }, 200)).toThrow(/allowed:/);
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
    expect(() => checkRequest(processRequest, { ...base, authorizationAmount: { amount: 12.5, currency: 'EUR' } }, 'process')).toThrow(
      /authorizationAmount\.amount/,
    );
  });

  it('refuses unknown fields (a typo would otherwise be dropped by the platform silently)', () => {
    expect(() => checkRequest(processRequest, { ...base, authorisationAmount: {} }, 'process')).toThrow(/PLATFORM_BAD_REQUEST|unrecognized|authorisationAmount/i);
  });

  it('refuses a full card number where a masked one belongs, without echoing it', () => {
    let message = '';
    try {
      checkRequest(processRequest, { ...base, instrument: { instrumentType: 'card', card: { maskedPan: '4761739001010010' } } }, 'process');
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

  function clientWith(reply: { status: number; body: string }, path: string, method = 'POST'): { client: PlatformClient; agent: MockAgent } {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get(origin).intercept({ path, method }).reply(reply.status, reply.body, { headers: { 'content-type': 'application/json' } });
    return { client: new PlatformClient({ baseUrl: origin, dispatchers: agent, tokens, log: silentLogger(), getRetry: { retries: 0 } }), agent };
  }

  it('non-JSON after a write: PLATFORM_BAD_RESPONSE, outcome unknown', async () => {
    const { client, agent } = clientWith({ status: 200, body: '<html>ok</html>' }, '/payment/v1/transactions/s-1/capture');
    await expect(
      client.capture('s-1', { clientDateTime: '2030-01-01T10:00:00Z', channel: 'instore', captureAmount: { amount: 1, currency: 'EUR' } }),
    ).rejects.toMatchObject({ code: 'PLATFORM_BAD_RESPONSE', category: 'server', outcomeUnknown: true });
    await agent.close();
  });

  it('a wrong type in a read names the field, outcome known', async () => {
    const { client, agent } = clientWith({ status: 200, body: JSON.stringify([{ code: 'DE', display: 42 }]) }, '/resources/v1/countries', 'GET');
    await expect(client.countries()).rejects.toMatchObject({ code: 'PLATFORM_BAD_RESPONSE', outcomeUnknown: false, message: expect.stringMatching(/0\.display/) });
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
