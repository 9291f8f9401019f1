import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/config/index.js';
import { AgentError, ErrorCodes } from '../../src/core/index.js';
import { openApiText } from '../../src/ui/index.js';
import { OPERATIONS, openApiPath } from '../../src/ui/openapi/index.js';
import { contractProblems } from '../helpers/api-contract.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

const COMMITTED = join(import.meta.dirname, '..', '..', 'docs', 'openapi.json');

describe('the OpenAPI document of the local API', () => {
  let s: Started;
  beforeAll(async () => {
    // With receipts and reports, as the agent runs it: their routes exist only then.
    const none = (): never => {
      throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, 'no journal in this test');
    };
    s = await startApi({ extra: { reports: { receipt: none, endOfDay: none } } });
  });
  afterAll(async () => {
    await s.close();
  });

  it('is served at GET /api/v1/openapi.json with the token, and is a valid OpenAPI 3.1 document', async () => {
    const refused = await call(s.url, 'GET', '/api/v1/openapi.json');
    expect(refused.status).toBe(401);
    const r = await call(s.url, 'GET', '/api/v1/openapi.json', { headers: s.auth });
    expect(r.status).toBe(200);
    expect(r.json.openapi).toBe('3.1.0');
    const result = await new Validator().validate(r.json);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is committed as docs/openapi.json exactly as generated (npm run openapi writes it)', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    // A drift names the remedy rather than printing 80 KB of diff.
    expect(
      committed === openApiText(packageVersion()),
      'docs/openapi.json differs from the generated document: run `npm run openapi` and commit it',
    ).toBe(true);
  });

  it("names exactly the routes served under /api/v1, method by method: the loopback router's and the store-network-only ones", async () => {
    const loopback = s.api
      .routes()
      .filter((r) => r.path.startsWith('/api/v1/'))
      .map((r) => `${r.method} ${openApiPath(r.path)}`);
    // Pairing is served on the store-network listener only (docs/registers.md, "Pairing"):
    // a route of that name on loopback would appear twice here and fail the comparison.
    const storeNetworkOnly = OPERATIONS.filter((o) => o.listener === 'store-network').map(
      (o) => `${o.method} ${openApiPath(o.path)}`,
    );
    expect(storeNetworkOnly).toEqual(['POST /api/v1/pairing']);
    const served = [...loopback, ...storeNetworkOnly].sort();
    const doc = JSON.parse(readFileSync(COMMITTED, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(served.length).toBeGreaterThan(15);
    expect(documented).toEqual(served);
  });

  it('describes requests with the schemas that validate them: the sale body refuses what the route refuses', () => {
    const doc = JSON.parse(readFileSync(COMMITTED, 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; additionalProperties?: boolean }> };
    };
    const sale = doc.components.schemas.SaleRequest;
    expect(sale?.additionalProperties).toBe(false);
    expect(Object.keys(sale?.properties ?? {})).toEqual(expect.arrayContaining(['method', 'amount', 'reference']));
    expect(sale?.properties.reference).toMatchObject({ maxLength: 64 });
  });

  it('the contract check refuses an answer the document does not describe (it bites)', () => {
    const good = JSON.stringify({ status: 'ok' });
    expect(contractProblems('GET', '/healthz', 200, 'application/json', good)).toEqual([]);
    expect(
      contractProblems('GET', '/healthz', 200, 'application/json', JSON.stringify({ status: 'ok', extra: 1 })),
    ).not.toEqual([]);
    expect(contractProblems('GET', '/api/v1/devices', 200, 'text/plain', '')).not.toEqual([]);
    expect(
      contractProblems(
        'GET',
        '/api/v1/transactions/T-1',
        404,
        'application/json',
        JSON.stringify({ error: { code: 'X' } }),
      ),
    ).not.toEqual([]);
  });
});
