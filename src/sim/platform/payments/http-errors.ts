import type { z } from 'zod';
import { SimHttpError } from '../router.js';

/**
 * Error bodies (docs/demo-platform.md, "Demo platform"): `{errorCode, errorMessage}` with 400 for invalid
 * input, 401 for the token, 404 for an unknown transaction, 409 for a conflicting repeat
 * of a client transaction id, 422 for a payment rule.
 */
export const validationError = (message: string, errorCode = 'VALIDATION_ERROR'): SimHttpError =>
  new SimHttpError(400, errorCode, message);
export const ruleError = (errorCode: string, message: string): SimHttpError =>
  new SimHttpError(422, errorCode, message);
export const conflictError = (errorCode: string, message: string): SimHttpError =>
  new SimHttpError(409, errorCode, message);
export const notFoundError = (id: string): SimHttpError =>
  new SimHttpError(404, 'TRANSACTION_NOT_FOUND', `no transaction ${id}`);

/** Parses a request body; the first issue becomes the message ("authorizationAmount.currency: …"). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue !== undefined && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw validationError(`${where}${issue?.message ?? 'invalid request body'}`);
}
