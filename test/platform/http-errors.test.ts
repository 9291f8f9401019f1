import { describe, expect, it } from 'vitest';
import { parseErrorBody, statusError, transportError, type HttpResponse } from '../../src/platform/http.js';

const req = (method: 'GET' | 'POST') => ({
  operation: 'process',
  method,
  url: 'https://platform.test/payment/v1/transactions/process',
});
const res = (status: number, text: string, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers,
  text,
  dateMs: undefined,
  receivedAtMs: 0,
  receivedMono: 0,
  durationMs: 1,
});
const errWith = (code: string, name = 'Error'): Error => Object.assign(new Error('boom'), { code, name });

describe('error bodies', () => {
  it('reads {errorCode, errorMessage} and OAuth {error, error_description}', () => {
    expect(parseErrorBody('{"errorCode":"E1","errorMessage":"nope"}')).toEqual({
      errorCode: 'E1',
      errorMessage: 'nope',
    });
    expect(parseErrorBody('{"error":"invalid_grant","error_description":"used"}')).toEqual({
      errorCode: 'invalid_grant',
      errorMessage: 'used',
    });
  });

  it('copes with empty, non-JSON and non-object bodies', () => {
    expect(parseErrorBody('')).toEqual({});
    expect(parseErrorBody('<html>502</html>')).toEqual({});
    expect(parseErrorBody('"text"')).toEqual({});
    expect(parseErrorBody('{"errorCode":5}')).toEqual({});
  });
});

describe('status classification', () => {
  it.each([
    [400, 'POST', 'rejected', false],
    [401, 'POST', 'auth', false],
    [403, 'GET', 'auth', false],
    [404, 'GET', 'rejected', false],
    [409, 'POST', 'rejected', false],
    [429, 'POST', 'rejected', false],
    [500, 'POST', 'server', true],
    [503, 'GET', 'server', false],
  ] as const)('%i on %s is %s, outcomeUnknown %s', (status, method, category, unknown) => {
    const e = statusError(req(method), res(status, ''));
    expect(e).toMatchObject({ category, outcomeUnknown: unknown, status });
  });

  it('carries Retry-After and marks 429 transient', () => {
    const e = statusError(req('POST'), res(429, '', { 'retry-after': '7' }));
    expect(e.retryAfterMs).toBe(7_000);
    expect(e.transient).toBe(true);
  });
});

describe('transport classification', () => {
  it.each([
    ['ECONNREFUSED', 'network', false],
    ['ENOTFOUND', 'network', false],
    ['UND_ERR_CONNECT_TIMEOUT', 'network', false],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'network', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'network', false],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'auth', false],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout', true],
    ['UND_ERR_BODY_TIMEOUT', 'timeout', true],
    ['UND_ERR_SOCKET', 'network', true],
    ['ECONNRESET', 'network', true],
  ] as const)('%s is %s, outcomeUnknown %s', (code, category, unknown) => {
    expect(transportError(req('POST'), errWith(code))).toMatchObject({
      category,
      outcomeUnknown: unknown,
      transportCode: code,
    });
  });

  it('a refused client certificate is AUTH_CERT_REFUSED', () => {
    expect(transportError(req('POST'), errWith('ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED')).code).toBe(
      'AUTH_CERT_REFUSED',
    );
  });

  it('an abort by timeout signal is a timeout', () => {
    expect(
      transportError(req('GET'), new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ).toMatchObject({ category: 'timeout' });
  });

  it('finds the code along the cause chain', () => {
    const wrapped = Object.assign(new Error('fetch failed'), { cause: errWith('ECONNREFUSED') });
    expect(transportError(req('POST'), wrapped)).toMatchObject({ category: 'network', outcomeUnknown: false });
  });
});
