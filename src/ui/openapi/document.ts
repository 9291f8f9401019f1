import { z } from 'zod';
import { errorAnswerSchema } from './responses.js';
import { OPERATIONS, type Named, type Operation } from './operations.js';
import { pageLimitSchema } from '../shared/index.js';

type Json = Record<string, unknown>;

/** `/api/v1/transactions/:id` -> `/api/v1/transactions/{id}`. */
export function openApiPath(routerPath: string): string {
  return routerPath.replace(/:([A-Za-z]+)/g, '{$1}');
}

/** A registry's schemas as components, referring to each other by `#/components/schemas/<name>`. */
function components(schemas: Named[], io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  const seen = new Set<z.ZodType>();
  for (const { name, schema } of schemas) {
    if (seen.has(schema)) continue;
    seen.add(schema);
    registry.add(schema, { id: name });
  }
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', io, uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Json>;
  };
  for (const schema of Object.values(out.schemas)) {
    // Each sits inside the document: no dialect or id of its own.
    delete schema.$schema;
    delete schema.$id;
  }
  return out.schemas;
}

function inputSchema(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Json;
  delete json.$schema;
  return json;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** Through the local API's dispatch, so a write takes an Idempotency-Key (pairing on the store network does not: its code is used once). */
const idempotent = (op: Operation): boolean => op.body !== undefined && op.listener !== 'store-network';

// Where each listener is (docs/local-api.md, "Where it listens"; docs/registers.md).
const LOOPBACK = { url: 'http://127.0.0.1:8080', description: 'the agent on the terminal, loopback only (api.port)' };
const STORE_NETWORK = {
  url: 'https://{terminal}:8444',
  description:
    "the store-network listener for paired registers (api.lan.*, off by default): TLS with the terminal's own certificate, pinned by the fingerprint the terminal shows; {terminal} is a name or address from api.lan.hostNames",
  // The variable's meaning is told in the server's description: swagger-cli and spectral refuse a description on a server variable.
  variables: { terminal: { default: 'terminal.local' } },
};

/** Query values parsed into numbers, as their numbers (the zod schema reads the text). */
const QUERY_TYPES = new Map<z.ZodType, Json>([[pageLimitSchema, { type: 'integer', minimum: 1, maximum: 1000 }]]);

function parameters(op: Operation): Json[] {
  const out: Json[] = [];
  for (const name of op.path.match(/:([A-Za-z]+)/g) ?? []) {
    out.push({
      name: name.slice(1),
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,80}$' },
      description: op.idDescription ?? 'the client or the server transaction id',
    });
  }
  const shape = (op.query?.shape ?? {}) as Record<string, z.ZodType>;
  for (const [name, schema] of Object.entries(shape)) {
    const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
    // A query value is text on the wire; a number parsed from it is described as the number it must be.
    out.push({
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      schema: QUERY_TYPES.get(inner) ?? inputSchema(schema),
    });
  }
  for (const h of op.headers ?? [])
    out.push({ name: h.name, in: 'header', required: false, description: h.description, schema: h.schema });
  out.push({
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      "Your id for this request: it comes back on the answer, and the agent's log lines and the journal rows the request causes carry it. Another value (or none) gets a new id.",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
  });
  if (idempotent(op)) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        "Your key for this request (a UUID): a repeat with the same key and body answers the first request's result; the same key with another body is refused with 409. Kept 48 hours per caller.",
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
    });
  }
  return out;
}

/** What each error status means (docs/local-api.md, "Errors"); the code in the answer says which case. */
const ERROR_MEANINGS: Readonly<Record<number, string>> = {
  400: 'the request is not valid (a field, the query, the body or the HTTP framing): the message says what to fix',
  401: 'no credential, or a wrong one',
  402: 'declined',
  403: 'a permission is missing (error.permission names it), or the Host or Origin is not allowed',
  404: 'no such transaction, offline sale or register (one of another register answers the same)',
  409: 'not possible in the current state, or the device is busy',
  413: 'the body is over 64 KiB',
  415: 'the body is not application/json',
  422: 'a payment rule refuses it (error.reasonCode says which)',
  429: 'too many tries: wait as Retry-After says',
  502: 'the platform failed or refused the terminal: the outcome may be unknown (the message says)',
  503: 'nothing was done (the platform, the journal, the disk or a device is not available): try later',
  504: 'the platform or a device did not answer in time: the outcome may be unknown (the message says)',
};

/**
 * Every error status the operation can answer: 400 (the query, the body, the request's
 * framing) and 403 (the Host and Origin checks) everywhere, 401 where a credential is needed,
 * 404 where the path names something, 409 with an Idempotency-Key, 413 and 415 with a body,
 * and the operation's own (`errors`). The fuzz test requires each answer's status here.
 */
export function errorStatuses(op: Operation): number[] {
  const out = new Set<number>([400, 403]);
  if (op.public !== true) out.add(401);
  if (/:[A-Za-z]+/.test(op.path)) out.add(404);
  if (idempotent(op)) out.add(409);
  if (op.body !== undefined) {
    out.add(413);
    out.add(415);
  }
  for (const s of op.errors ?? []) out.add(s);
  return [...out].sort((a, b) => a - b);
}

function operationObject(op: Operation): Json {
  const responses: Json = {};
  // A write's answer may repeat the first request's (docs/local-api.md, "Idempotency").
  const requestId = {
    'X-Request-Id': {
      description: "the request's id: the one sent, or one the agent made",
      schema: { type: 'string' },
    },
  };
  const replayed = {
    headers: idempotent(op)
      ? {
          ...requestId,
          'Idempotent-Replayed': {
            description: 'present (true) when the answer repeats the first request with this Idempotency-Key',
            schema: { type: 'string', enum: ['true'] },
          },
        }
      : requestId,
  };
  for (const s of op.success) {
    const content =
      'json' in s
        ? { 'application/json': { schema: ref(s.json.name) } }
        : { [s.media]: { schema: { type: 'string', description: s.text } } };
    const known = responses[String(s.status)] as { content: Json } | undefined;
    // The first of a status describes it; the others add their media type (the query's format picks).
    responses[String(s.status)] =
      known !== undefined
        ? { ...known, content: { ...known.content, ...content } }
        : { description: s.description, ...replayed, content };
  }
  for (const status of errorStatuses(op)) {
    if (responses[String(status)] !== undefined) continue;
    const description =
      status === 409 && idempotent(op)
        ? 'the Idempotency-Key was used with another request, or the operation conflicts with the current state (the code says which)'
        : (ERROR_MEANINGS[status] ?? 'refused or failed');
    responses[String(status)] = {
      description,
      headers: requestId,
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  responses.default = {
    description: 'refused or failed: the code is stable, the message says what to do (docs/local-api.md, "Errors")',
    headers: requestId,
    content: { 'application/json': { schema: ref('Error') } },
  };
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description !== undefined ? { description: op.description } : {}),
    ...(op.listener === 'store-network' ? { 'x-listener': 'store-network', servers: [STORE_NETWORK] } : {}),
    ...(op.listener === 'both'
      ? {
          'x-listener': 'both',
          servers: [LOOPBACK, STORE_NETWORK],
          security: [{ localToken: [] }, { registerKey: [] }],
        }
      : {}),
    ...(op.public === true ? { security: [] } : {}),
    parameters: parameters(op),
    // Required unless the empty body is a valid request (a cancel of the whole amount).
    ...(op.body !== undefined
      ? {
          requestBody: {
            required: !op.body.schema.safeParse({}).success,
            content: { 'application/json': { schema: ref(op.body.name) } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The local API's OpenAPI 3.1 document (docs/local-api.md), built from the zod schemas the
 * routes validate requests with and the answers' schemas; served at GET
 * /api/v1/openapi.json and kept in docs/openapi.json (`npm run openapi`).
 */
export function openApiDocument(version: string): Json {
  const requests = OPERATIONS.flatMap((op) => (op.body !== undefined ? [op.body] : []));
  const answers: Named[] = [
    { name: 'Error', schema: errorAnswerSchema },
    ...OPERATIONS.flatMap((op) => op.success.flatMap((s) => ('json' in s ? [s.json] : []))),
  ];
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    const path = openApiPath(op.path);
    paths[path] = { ...(paths[path] ?? {}), [op.method.toLowerCase()]: operationObject(op) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'terminal-agent local API',
      version,
      contact: { name: 'the terminal manufacturer who installed the agent' },
      description:
        "The payment terminal agent's API for cash registers and on-device programs, on loopback. Versioned by path (/api/v1): fields may be added to answers within v1; nothing is removed or changed in meaning. Paired cash registers on the store network reach a second listener (off by default) that serves only the operations marked `x-listener: both` (with their register key, each narrowed to the register's own transactions) and pairing (`x-listener: store-network`, served there only); every other operation is loopback only. See docs/local-api.md and docs/registers.md in the repository.",
    },
    servers: [LOOPBACK],
    security: [{ localToken: [] }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        localToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'the per-install token from local-api.token in the data directory (loopback only)',
        },
        registerKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            "the API key a register got from POST /api/v1/pairing (store-network listener only; docs/registers.md): accepted there for the operations marked `x-listener: both`, each narrowed to the register's own transactions (another's id answers 404); capture-all and refund by web answer 403 there, everything else 404",
        },
      },
      schemas: { ...components(answers, 'output'), ...components(requests, 'input') },
    },
  };
}

/** The document as docs/openapi.json holds it (two-space indent, final newline). */
export function openApiText(version: string): string {
  return `${JSON.stringify(openApiDocument(version), null, 2)}\n`;
}
