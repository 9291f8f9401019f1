import { AgentError, ErrorCodes } from '../../../core/index.js';
import { currentOperator } from '../../../payments/index.js';
import { readJsonBody } from '../http-io.js';
import type { RouteContext, Router } from '../router.js';
import {
  emptyBodySchema,
  noQuerySchema,
  parseInput,
  queryObject,
  type ApiPairingOfferAnswer,
  type ApiRegister,
  type ApiRegisterAnswer,
  type ApiRegistersAnswer,
} from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

/** The paired registers as these routes see them; the LAN part's RegisterStore is one. */
export interface RegisterList {
  list(): ApiRegister[];
  revoke(id: string): ApiRegister;
}

/** The one-time pairing codes as these routes see them; the LAN part's PairingDesk is one. */
export interface PairingCodes {
  start(by: string): { code: string; expiresAt: string };
  pending(): { expiresAt: string } | undefined;
}

export interface RegisterRouteDeps {
  registers: RegisterList;
  /** Undefined while the store-network listener is off. */
  lan: { pairing: PairingCodes; url: string; fingerprint: string; disconnect(registerId: string): void } | undefined;
}

function noQuery(ctx: RouteContext): void {
  parseInput(noQuerySchema, queryObject(ctx.query), 'query');
}

/**
 * Pairing and revoking cash registers, on loopback only (docs/registers.md, "Pairing"):
 * the per-install token or a clerk with the registers permission (permissions.ts).
 */
export function registerRegisterRoutes(
  router: Router,
  deps: Pick<RouteDeps, 'log'>,
  lan: () => RegisterRouteDeps,
): void {
  router.add('GET', '/api/v1/registers', (ctx) => {
    noQuery(ctx);
    const { registers, lan: listener } = lan();
    const pending = listener?.pairing.pending();
    const body: ApiRegistersAnswer = {
      lan:
        listener === undefined
          ? { enabled: false }
          : { enabled: true, url: listener.url, fingerprint: listener.fingerprint },
      ...(pending !== undefined ? { pairing: pending } : {}),
      registers: registers.list(),
    };
    return { status: 200, body };
  });

  router.add('POST', '/api/v1/registers/pairing', async (ctx) => {
    noQuery(ctx);
    parseInput(emptyBodySchema, await readJsonBody(ctx.req), 'request body');
    const listener = lan().lan;
    if (listener === undefined) {
      throw new AgentError(
        ErrorCodes.LAN_DISABLED,
        'the store-network listener is off: set api.lan.enabled (and api.lan.hostNames) in the configuration and restart the agent',
      );
    }
    const offer = listener.pairing.start(currentOperator());
    deps.log.info({ by: currentOperator(), expiresAt: offer.expiresAt }, 'register pairing started');
    return {
      status: 201,
      body: {
        pairing: { ...offer, fingerprint: listener.fingerprint, url: listener.url },
      } satisfies ApiPairingOfferAnswer,
    };
  });

  router.add('DELETE', '/api/v1/registers/:id', (ctx) => {
    noQuery(ctx);
    const id = ctx.params.id ?? '';
    const { registers, lan: listener } = lan();
    const register = registers.revoke(id);
    listener?.disconnect(id);
    deps.log.info({ registerId: id, by: currentOperator() }, 'register revoked');
    return { status: 200, body: { register } satisfies ApiRegisterAnswer };
  });
}
