import type { Config } from '../../config/index.js';
import { AgentError, ErrorCodes } from '../../core/index.js';

type Permission = keyof Config['api']['permissions'];

/** Operations that need a permission of the signed-in clerk, by method and path (docs/counter-page.md, "Local API and counter page"). */
const RULES: Array<{ method: string; path: RegExp; needs: Permission[]; what: string }> = [
  { method: 'POST', path: /^\/api\/v1\/transactions\/[^/]+\/cancel$/, needs: ['cancel'], what: 'cancel' },
  { method: 'POST', path: /^\/api\/v1\/transactions\/[^/]+\/refund$/, needs: ['refund'], what: 'refund' },
  // The platform picks cancel or refund: the clerk needs both.
  {
    method: 'POST',
    path: /^\/api\/v1\/transactions\/[^/]+\/refund-by-web$/,
    needs: ['cancel', 'refund'],
    what: 'cancel or refund by web',
  },
  { method: 'POST', path: /^\/api\/v1\/capture-all$/, needs: ['captureAll'], what: 'capture all' },
  // Pairing hands a register a key that can take payments: only a clerk allowed to manage registers.
  { method: 'POST', path: /^\/api\/v1\/registers\/pairing$/, needs: ['registers'], what: 'pair a cash register' },
  { method: 'DELETE', path: /^\/api\/v1\/registers\/[^/]+$/, needs: ['registers'], what: 'revoke a cash register' },
  { method: 'PUT', path: /^\/api\/v1\/log-level$/, needs: ['logLevel'], what: 'change the log level' },
];

/** The permission names (api.permissions) a request needs; empty for everything else. */
export function requiredPermissions(
  method: string,
  pathname: string,
  config: Config,
): { names: string[]; what: string } | undefined {
  const rule = RULES.find((r) => r.method === method && r.path.test(pathname));
  if (rule === undefined) return undefined;
  return { names: rule.needs.map((p) => config.api.permissions[p]), what: rule.what };
}

/** What the page may offer a clerk holding `granted` (the same table). */
export function pageAbilities(granted: readonly string[], config: Config): Record<Permission, boolean> {
  const p = config.api.permissions;
  return {
    cancel: granted.includes(p.cancel),
    refund: granted.includes(p.refund),
    captureAll: granted.includes(p.captureAll),
    registers: granted.includes(p.registers),
    refundByWeb: granted.includes(p.refundByWeb),
    logLevel: granted.includes(p.logLevel),
  };
}

/**
 * Cancel or refund by web of a sale made at this terminal needs its own permission besides
 * cancel and refund: by web no supervisor approval code applies, so a clerk without it
 * cannot go round the code the terminal's own cancel and refund may need
 * (docs/platform-contract.md, "Decisions where the spec is silent", approval code). A web
 * shop's order keeps the path's rule alone. Token callers may do every operation.
 */
export function checkRefundByWebOfOwnSale(
  caller: { staff?: { username: string; permissions: readonly string[] } } | undefined,
  config: Config,
): void {
  if (caller?.staff === undefined) return;
  checkPermissions(caller.staff.username, caller.staff.permissions, {
    names: [config.api.permissions.refundByWeb],
    what: 'cancel or refund a sale of this terminal by web',
  });
}

export function checkPermissions(
  username: string,
  granted: readonly string[],
  need: { names: string[]; what: string },
): void {
  const missing = need.names.filter((n) => !granted.includes(n));
  if (missing.length === 0) return;
  throw new AgentError(
    ErrorCodes.API_FORBIDDEN,
    `${username} may not ${need.what}: the permission ${missing.join(' and ')} is needed (ask a supervisor)`,
    {
      details: { missing, permission: missing.join(' ') },
    },
  );
}
