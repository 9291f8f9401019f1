import { randomUUID } from 'node:crypto';
import { SimHttpError, type SimRequest, type SimResponse } from '../router.js';
import { assertDomain, type AuthCore } from './core.js';
import { required, tokenForm } from './form.js';
import type { Grant } from './grant.js';
import { oauthError } from './oauth-error.js';
import { withScopes } from './scope.js';

const METHODS = ['api', 'device_flow'];

/** The form the spec gives the call (endpoint 5): these fields and no other. */
const CONTRACT_FIELDS: readonly string[] = ['device_model', 'device_id', 'method'];

/**
 * The custom-token call (demo only; docs/platform-contract.md, "Tokens"): a device token for a terminal call without a physical terminal,
 * in exchange for a merchant token. When the call comes with a platform client
 * certificate the device token is bound to it, as on the mutual TLS endpoint.
 */
export function customTokenEndpoint(core: AuthCore) {
  return (req: SimRequest): SimResponse => {
    assertDomain(core, req.params.realm);
    try {
      const merchantToken = core.verifier.verifyBearer(req.headers.authorization, req.clientThumbprint);
      const subject = core.subjects.byUuid(merchantToken.sub);
      if (
        merchantToken.entityId === undefined ||
        subject === undefined ||
        subject.entityId !== merchantToken.entityId
      ) {
        throw new SimHttpError(403, 'insufficient_scope', 'a merchant token with scope profile is required', {
          'www-authenticate': 'Bearer error="insufficient_scope", scope="profile"',
        });
      }
      const form = tokenForm(req);
      // Strict: a field outside the contract is refused, so a client that invents one shows red (docs/demo-platform.md, "Demo platform").
      const extra = [...form.keys()].filter((k) => !CONTRACT_FIELDS.includes(k));
      if (core.ctx.profile.strict && extra.length > 0)
        throw oauthError(
          'invalid_request',
          `unknown parameter ${extra.map((k) => k.slice(0, 40)).join(', ')}: the custom-token call takes device_model, device_id and method only`,
        );
      const deviceModel = required(form, 'device_model');
      const deviceId = required(form, 'device_id');
      const method = required(form, 'method');
      if (!METHODS.includes(method)) throw oauthError('invalid_request', 'method must be api or device_flow');
      // A device_id naming a seeded terminal of this merchant (logical id or serial number)
      // makes the token act for that terminal, as a device token from the mutual TLS token call would.
      const terminal = core.ctx.seed.terminals.find(
        (t) =>
          (t.logicalDeviceId === deviceId || t.serialNumber === deviceId) &&
          t.merchantIds.includes(merchantToken.entityId as string),
      );
      const scope = withScopes(
        merchantToken.scope.split(' ').filter((s) => s !== ''),
        ['openid', 'auth'],
      );
      const grant: Grant = {
        clientId: merchantToken.azp,
        subject,
        scope,
        device: {
          deviceType: deviceModel,
          deviceId: terminal?.logicalDeviceId ?? deviceId,
          method,
          twoFa: req.clientThumbprint === undefined ? 'none' : 'tls',
          ...(terminal === undefined ? {} : { physicalDeviceId: terminal.serialNumber }),
        },
        cnf: req.clientThumbprint,
        idToken: true,
        sessionId: randomUUID(),
        reportSession: true,
        authTime: Math.floor(core.ctx.now() / 1000),
      };
      const body = core.issuer.issue(grant, scope);
      core.stats.count('custom_token', true, 'custom');
      core.log.info({ clientId: grant.clientId, bound: grant.cnf !== undefined }, 'device token issued');
      return { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body };
    } catch (err) {
      core.stats.count('custom_token', false, 'custom');
      if (err instanceof SimHttpError) core.log.info({ error: err.errorCode }, 'device token request refused');
      throw err;
    }
  };
}
