import { SimHttpError, type SimRouter } from '../router.js';
import type { SimContext, TokenVerifier } from '../context.js';

/** The demo authorization server (endpoints 1-6 of the spec). */
export interface SimAuthServer {
  verifier: TokenVerifier;
  /** Issues a new client secret; the old one fails from now on, issued tokens stay valid. */
  renewSecret(clientId: string): string;
  registerControl(router: SimRouter): void;
}

export function createAuthServer(_router: SimRouter, _ctx: SimContext): SimAuthServer {
  return {
    verifier: {
      verifyBearer() {
        throw new SimHttpError(401, 'invalid_token', 'no authorization server');
      },
    },
    renewSecret() {
      throw new Error('no authorization server');
    },
    registerControl() {},
  };
}
