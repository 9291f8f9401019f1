import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { SimContext, TokenVerifier } from '../context.js';
import type { SimRequest } from '../router.js';
import type { SeedTerminal } from '../seed.js';
import { ClientRegistry } from './clients.js';
import { CodeStore } from './code-store.js';
import { GrantStats } from './grant-stats.js';
import { oauthError, unknownDomain } from './oauth-error.js';
import { RefreshStore } from './refresh-store.js';
import { SubjectDirectory } from './subjects.js';
import { TokenIssuer } from './token-issuer.js';
import { createVerifier } from './verifier.js';

/** The authorization server's state, shared by its endpoints; one per demo platform. */
export interface AuthCore {
  ctx: SimContext;
  log: Logger;
  clients: ClientRegistry;
  subjects: SubjectDirectory;
  codes: CodeStore;
  refresh: RefreshStore;
  issuer: TokenIssuer;
  stats: GrantStats;
  verifier: TokenVerifier;
}

export function createAuthCore(ctx: SimContext): AuthCore {
  const refresh = new RefreshStore();
  return {
    ctx,
    log: ctx.log.child({ component: 'demo-auth' }),
    clients: new ClientRegistry(ctx.seed),
    subjects: new SubjectDirectory(ctx.seed),
    codes: new CodeStore(),
    refresh,
    issuer: new TokenIssuer(ctx, refresh),
    stats: new GrantStats(),
    verifier: createVerifier(ctx),
  };
}

/**
 * The user domain (authorization and OAuth token calls) or realm (custom token and realm
 * URLs) in the path. The demo hosts
 * one organization, addressed by either name (on the platform user_domain is also the realm name).
 */
export function assertDomain(core: AuthCore, name: string | undefined): void {
  const { userDomain, realm } = core.ctx.seed;
  if (name !== userDomain && name !== realm) throw unknownDomain(name ?? '');
}

export function sameSecret(a: string, b: string): boolean {
  const h = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(a), h(b));
}

/** The serialNumber attribute of the certificate subject (may be repeated by OpenSSL). */
export function certSerialNumber(req: SimRequest): string | undefined {
  const value: unknown = (req.clientCert?.subject as unknown as Record<string, unknown> | undefined)?.serialNumber;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/**
 * The seeded terminal named by the client certificate (the certificate's subject
 * carries the serial number: docs/platform-contract.md, "Hosts and TLS"). No valid certificate: 401; unknown terminal: 403.
 */
export function terminalOfCert(core: AuthCore, req: SimRequest): SeedTerminal & { serialNumber: string } {
  if (req.clientCert === undefined || req.clientThumbprint === undefined) {
    throw oauthError('invalid_client', 'a valid client certificate from the platform CA is required');
  }
  const serial = certSerialNumber(req);
  const terminal = serial === undefined ? undefined : core.ctx.seed.terminals.find((t) => t.serialNumber === serial);
  if (terminal === undefined)
    throw oauthError('access_denied', 'the certificate does not name a terminal registered with the platform');
  return terminal;
}
