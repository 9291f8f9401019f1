import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import { packageVersion } from '../../src/config/index.js';
import { openApiDocument } from '../../src/ui/index.js';
import { call } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

/**
 * Requests generated from the OpenAPI document and mutated (docs/local-api.md, "The
 * document"), sent to the whole agent on the demo platform: every answer is below 500 and
 * matches the document (call() checks each one against it). The seed is fixed, so a failure
 * is repeated by running the file again; FUZZ_SEED picks another.
 */
type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}
interface OperationSpec {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  /** The statuses the document lists for it (not `default`). */
  statuses: Set<string>;
  pattern: RegExp;
}
interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const RUNS = 3_200;
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);

const doc = openApiDocument(packageVersion()) as {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<string, unknown>;
        'x-listener'?: string;
      }
    >
  >;
  components: { schemas: Record<string, Schema> };
};

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string'
    ? resolve(doc.components.schemas[ref.replace('#/components/schemas/', '')] ?? {})
    : schema;
}

/** Every operation served on loopback but the event stream (an answer that never ends); pairing is the store network's. */
const OPERATIONS: OperationSpec[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => op['x-listener'] !== 'store-network' && path !== '/api/v1/events')
    .map(([method, op]) => {
      const body = op.requestBody?.content['application/json']?.schema;
      const statuses = new Set(Object.keys(op.responses).filter((s) => s !== 'default'));
      const pattern = new RegExp(`^${path.replace(/\./g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return {
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        statuses,
        pattern,
        ...(body !== undefined ? { body: resolve(body) } : {}),
      };
    }),
);

/** Text that breaks things: empty, long, control and non-ASCII characters, path and SQL tricks. */
const nastyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e3',
    '0x10',
    'null',
    'true',
    '../..',
    '%00',
    '\u0000',
    'é€😀',
    "' OR 1=1 --",
    '9'.repeat(40),
    'a'.repeat(5_000),
    '12.345',
    '−5',
  ),
);

/** Values the demo accepts for fields of these names, so that generated requests reach the rules behind validation. */
const GOOD: Record<string, readonly string[]> = {
  amount: ['12.34', '0.01', '5', '49.99', '100.00'],
  currency: ['EUR'],
  merchantId: ['m-1001', 'm-1002', 'terminal-app-1002'],
  approvalCode: ['4711', '0000'],
  walletId: ['281012345678901234'],
  reference: ['R-1', 'till 7 / 42'],
  email: ['buyer@example.com'],
  orderId: ['O-1'],
};

/** A value that fits `schema` most of the time (`name`: the property it is for). */
function valueOf(schema: Schema, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const choices = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (choices !== undefined) return fc.oneof(...choices.map((c) => valueOf(c, depth + 1)));
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (s.const !== undefined) return fc.constant(s.const);
  switch (s.type) {
    case 'string': {
      const good = name !== undefined ? GOOD[name] : undefined;
      const any = fc.string({ minLength: 1, maxLength: Number(s.maxLength ?? 20) });
      return good !== undefined
        ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: any })
        : any;
    }
    case 'integer':
      return fc.integer({ min: Number(s.minimum ?? -5), max: Number(s.maximum ?? 100_000) });
    case 'number':
      return fc.double({ noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(valueOf((s.items as Schema) ?? {}, depth + 1), { maxLength: 3 });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set((s.required ?? []) as string[]);
      if (depth > 3) return fc.constant({});
      // An optional field is left out more often than not: each one may rule the others out (walletId is for merchant scan only).
      const entries = Object.entries(props).map(
        ([k, v]) =>
          [
            k,
            required.has(k)
              ? valueOf(v, depth + 1, k)
              : fc.oneof(
                  { weight: 3, arbitrary: fc.constant(undefined) },
                  { weight: 1, arbitrary: valueOf(v, depth + 1, k) },
                ),
          ] as const,
      );
      return fc
        .record(Object.fromEntries(entries))
        .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body: fitting, with one field changed, with a field too many, any JSON, or not JSON at all. */
function bodyOf(schema: Schema | undefined): fc.Arbitrary<{ text?: string; type?: string }> {
  const json = (v: unknown): { text: string; type: string } => ({ text: JSON.stringify(v), type: 'application/json' });
  const fitting = schema === undefined ? fc.constant({}) : valueOf(schema);
  return fc.oneof(
    { weight: 4, arbitrary: fitting.map(json) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fitting, fc.string({ maxLength: 12 }), fc.oneof(nastyText, fc.jsonValue({ maxDepth: 2 })))
        .map(([v, key, value]) => {
          const o =
            typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...(v as Record<string, unknown>) } : {};
          const keys = Object.keys(o);
          o[keys.length > 0 && key.length % 2 === 0 ? (keys[key.length % keys.length] as string) : key] = value;
          return json(o);
        }),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { text: '{"amount": "1.00",', type: 'application/json' },
        { text: 'amount=1.00', type: 'application/x-www-form-urlencoded' },
        { text: '{}', type: 'text/plain' },
        { text: '', type: 'application/json' },
        {},
      ),
    },
  );
}

function requestOf(op: OperationSpec, ids: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const id = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    { weight: 2, arbitrary: nastyText.filter((t) => t.length > 0) },
  );
  const query = fc.oneof(
    { weight: 2, arbitrary: fc.constant([] as Array<[string, string]>) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.oneof(
          ...(queryParams.length > 0
            ? [
                fc.tuple(
                  fc.constantFrom(...queryParams.map((p) => p.name)),
                  fc.oneof(valueOf(queryParams[0]?.schema ?? {}).map(String), nastyText),
                ),
              ]
            : []),
          fc.tuple(fc.constantFrom('limit', 'after', 'date', 'format', 'state', 'x'), nastyText),
        ),
        { maxLength: 3 },
      ),
    },
  );
  const headers = fc.record(
    {
      'idempotency-key': fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: nastyText }),
      'x-request-id': fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('till-7.0042', 'support:1') },
        { weight: 1, arbitrary: nastyText },
      ),
      'last-event-id': nastyText,
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(
      fc.array(id, { minLength: pathParams.length, maxLength: pathParams.length }),
      query,
      headers,
      bodyOf(op.body),
      fc.boolean(),
    )
    .map(([values, q, h, body, withBody]) => {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeURIComponent(values[i] ?? 'x'))));
      const search = new URLSearchParams(q.map(([k, v]) => [k, v] as [string, string])).toString();
      const sendsBody = op.body !== undefined || withBody;
      const headerValues = Object.fromEntries(Object.entries(h).filter(([, v]) => /^[\t\x20-\x7e]*$/.test(v)));
      return {
        method: op.method,
        path: `${path}${search !== '' ? `?${search}` : ''}`,
        headers: { ...headerValues, ...(sendsBody && body.type !== undefined ? { 'content-type': body.type } : {}) },
        ...(sendsBody && body.text !== undefined ? { body: body.text } : {}),
      };
    });
}

let t: TestAgent;
let agent: RunningAgent;

beforeAll(async () => {
  t = await startTestAgent({ level: 'info' });
  agent = t.agent;
}, 30_000);
afterAll(async () => {
  await t?.stop();
});

describe('the local API under generated and mutated requests', () => {
  it(`answers ${RUNS} of them below 500, each as the document describes (seed ${SEED})`, async () => {
    const auth = { authorization: `Bearer ${agent.localToken}` };
    // Ids that exist: a card sale and a sale for the second merchant, so operations reach their rules.
    const ids: string[] = ['no-such-id'];
    for (const merchantId of [undefined, 'm-1002']) {
      agent.simulated!.reader.nextCard({ delayMs: 0 });
      const sale = await agent.payments.startSale({
        method: 'card',
        amount: 5_000,
        currency: 'EUR',
        ...(merchantId !== undefined ? { merchantId } : {}),
      });
      ids.push((await sale.done).clientTransactionId);
    }
    const requests = fc.sample(
      fc.constantFrom(...OPERATIONS).chain((op) => requestOf(op, ids)),
      { numRuns: RUNS, seed: SEED },
    );
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const r of requests) {
      seen.add(`${r.method} ${r.path.split('?')[0]}`);
      try {
        const answer = await call(agent.url, r.method, r.path, {
          headers: { ...auth, ...r.headers },
          ...(r.body !== undefined ? { body: r.body } : {}),
        });
        if (answer.status >= 500)
          problems.push(`${r.method} ${r.path} ${r.body ?? ''} -> ${answer.status} ${answer.text.slice(0, 200)}`);
        // Every status it answers is listed for the operation, not left to `default`.
        const op = OPERATIONS.find((o) => o.method === r.method && o.pattern.test(r.path.split('?')[0] ?? ''));
        if (op !== undefined && !op.statuses.has(String(answer.status)))
          problems.push(
            `${r.method} ${r.path} -> ${answer.status}, which the document does not list for ${op.method} ${op.path} ${answer.text.slice(0, 160)}`,
          );
      } catch (err) {
        problems.push(`${r.method} ${r.path} ${r.body ?? ''} -> ${(err as Error).message.slice(0, 600)}`);
      }
      if (problems.length >= 10) break;
    }
    expect(problems).toEqual([]);
    expect(requests.length).toBe(RUNS);
    // Every operation was reached.
    expect(
      OPERATIONS.every((op) =>
        requests.some(
          (r) =>
            r.method === op.method &&
            new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}(\\?|$)`).test(r.path),
        ),
      ),
    ).toBe(true);
  }, 240_000);
});
