import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { packageVersion } from '../../src/config/index.js';
import { openApiDocument } from '../../src/ui/index.js';

/**
 * The contract check of the local API (docs/local-api.md, "The document"): every answer a
 * test receives through `call()` (http-client.ts) is checked against the OpenAPI document's
 * response for its operation and status, or `default`; a mismatch throws, failing the test.
 */

interface MediaObject {
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  content?: Record<string, MediaObject>;
}
interface OperationObject {
  responses: Record<string, ResponseObject>;
}

type Document = {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, unknown> };
};

let compiled: { doc: Document; ajv: Ajv2020; routes: Array<{ pattern: RegExp; path: string }> } | undefined;

function setup(): NonNullable<typeof compiled> {
  if (compiled !== undefined) return compiled;
  const doc = openApiDocument(packageVersion()) as unknown as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'local-api', components: doc.components }, 'local-api');
  const routes = Object.keys(doc.paths).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[A-Za-z]+\\?\}/g, '([^/]+?)')}$`),
  }));
  compiled = { doc, ajv, routes };
  return compiled;
}

const validators = new Map<string, ValidateFunction>();

function validatorFor(ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (v === undefined) {
    const c = setup();
    v = c.ajv.getSchema(`local-api${ref}`) ?? c.ajv.compile({ $ref: `local-api${ref}` });
    validators.set(ref, v);
  }
  return v;
}

/** Problems of one answer against the document; empty when it conforms or its path is not documented (the page, /session, /metrics). */
export function contractProblems(
  method: string,
  pathname: string,
  status: number,
  contentType: string | undefined,
  text: string,
): string[] {
  const c = setup();
  const route = c.routes.find((r) => r.pattern.test(pathname));
  const operation = route === undefined ? undefined : c.doc.paths[route.path]?.[method.toLowerCase()];
  let response: ResponseObject | undefined;
  if (operation !== undefined) response = operation.responses[String(status)] ?? operation.responses.default;
  else if (pathname.startsWith('/api/') && status >= 400)
    response = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  if (response === undefined)
    return operation === undefined ? [] : [`${method} ${pathname}: status ${status} is not in the document`];
  const media = (contentType ?? '').split(';')[0]?.trim() ?? '';
  const declared = response.content ?? {};
  const entry = declared[media];
  if (entry === undefined)
    return [
      `${method} ${pathname} ${status}: content type "${media}" is not in the document (${Object.keys(declared).join(', ')})`,
    ];
  if (media !== 'application/json') return [];
  const ref = entry.schema?.$ref;
  if (typeof ref !== 'string') return [];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${method} ${pathname} ${status}: the answer is not JSON`];
  }
  const validate = validatorFor(ref);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${method} ${pathname} ${status}: ${e.instancePath || '(answer)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

/** Throws when an answer does not match the document. */
export function assertContract(
  method: string,
  pathname: string,
  status: number,
  contentType: string | undefined,
  text: string,
): void {
  const problems = contractProblems(method, pathname, status, contentType, text);
  if (problems.length > 0) throw new Error(`the answer does not match docs/openapi.json:\n${problems.join('\n')}`);
}
