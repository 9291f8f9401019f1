import type { SimRequest, SimResponse } from '../router.js';
import { certSerialNumber, terminalOfCert, type AuthCore } from './core.js';
import { oauthError } from './oauth-error.js';

/** Terminal merchant credentials record (docs/platform-contract.md, "Endpoints"). */
export interface MerchantCredentials {
  merchantName: string;
  userDomain: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Merchant credentials (docs/platform-contract.md, "Tokens"): over mutual TLS, the credentials of the merchants registered for the
 * terminal whose serial number the client certificate carries, with their current secrets.
 */
export function credentialsEndpoint(core: AuthCore) {
  return (req: SimRequest): SimResponse => {
    const serial = req.query.get('serial_number');
    if (req.clientCert === undefined)
      throw oauthError('invalid_client', 'a valid client certificate from the platform CA is required');
    if (serial === null || serial === '') throw oauthError('invalid_request', 'missing parameter serial_number');
    if (certSerialNumber(req) !== serial)
      throw oauthError('access_denied', 'serial_number differs from the client certificate');
    const terminal = terminalOfCert(core, req);
    const body: MerchantCredentials[] = [];
    for (const merchantId of terminal.merchantIds) {
      const merchant = core.ctx.seed.merchants.find((m) => m.merchantId === merchantId);
      const secret = merchant === undefined ? undefined : core.clients.currentSecret(merchant.clientId);
      if (merchant === undefined || secret === undefined) continue;
      body.push({
        merchantName: merchant.merchantName,
        userDomain: core.ctx.seed.userDomain,
        clientId: merchant.clientId,
        clientSecret: secret,
      });
    }
    core.log.info({ serialNumber: terminal.serialNumber, merchants: body.length }, 'merchant credentials served');
    return { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body };
  };
}
