import { z } from 'zod';
import { nullAsAbsent } from './absent.js';

/**
 * The token response (all token endpoints, JSON: docs/platform-contract.md, "Tolerance of
 * answers"). Read leniently: unknown fields kept,
 * only access_token and expires_in required; every other member may be absent or null
 * (null reads as absent). Never logged.
 */
export const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().positive(),
  refresh_expires_in: nullAsAbsent(z.number().min(0)),
  refresh_token: nullAsAbsent(z.string().min(1)),
  id_token: nullAsAbsent(z.string()),
  token_type: nullAsAbsent(z.string().regex(/^bearer$/i, 'expected Bearer')),
  'not-before-policy': nullAsAbsent(z.number()),
  session_state: nullAsAbsent(z.string()),
  scope: nullAsAbsent(z.string()),
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
