import { z } from 'zod';

/**
 * The token response (all token endpoints, JSON: docs/platform-contract.md, "Tolerance of
 * answers"). Read leniently: unknown fields kept,
 * only access_token and expires_in required. Never logged.
 */
export const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().positive(),
  refresh_expires_in: z.number().min(0).optional(),
  refresh_token: z.string().min(1).optional(),
  id_token: z.string().optional(),
  token_type: z.string().regex(/^bearer$/i, 'expected Bearer').optional(),
  'not-before-policy': z.number().optional(),
  session_state: z.string().optional(),
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** When and how a token response arrived: the basis of expiry and clock-skew arithmetic. */
export interface ResponseTiming {
  /** The platform's Date header, ms since the epoch. */
  dateMs: number | undefined;
  /** Local wall clock at receipt. */
  receivedAtMs: number;
  /** Local monotonic clock at receipt. */
  receivedMono: number;
}

export interface GrantOutcome {
  response: TokenResponse;
  timing: ResponseTiming;
}
