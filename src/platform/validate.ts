import type { z } from 'zod';
import { AgentError, ErrorCodes } from '../core/index.js';
import { PlatformError } from './errors.js';
import type { HttpMethod } from './http.js';

/** "field.path: what was wrong" for the first few issues; zod messages never echo values. */
export function describeIssues(error: z.ZodError, max = 3): string {
  return error.issues
    .slice(0, max)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(body)'}: ${i.message}`)
    .join('; ');
}

/** A request body we are about to send; a bad one is our caller's bug and never leaves. */
export function checkRequest<S extends z.ZodType>(schema: S, value: unknown, operation: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AgentError(
      ErrorCodes.PLATFORM_BAD_REQUEST,
      `${operation} request is invalid: ${describeIssues(parsed.error)}`,
      {
        details: { operation, fields: parsed.error.issues.map((i) => i.path.map(String).join('.')) },
      },
    );
  }
  return parsed.data;
}

/**
 * A 2xx answer read leniently. A wrong type is a server fault naming the field; after a
 * write its effect is unknown (the platform acted but we cannot read what it did).
 */
export function readResponse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  req: { operation: string; method: HttpMethod },
  status: number,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new PlatformError(`platform answer to ${req.operation} is not understood: ${describeIssues(parsed.error)}`, {
      category: 'server',
      code: ErrorCodes.PLATFORM_BAD_RESPONSE,
      operation: req.operation,
      method: req.method,
      status,
      outcomeUnknown: req.method !== 'GET',
    });
  }
  return parsed.data;
}
