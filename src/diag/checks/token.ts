import {
  decodeJwtPayload,
  fetchMerchantCredentials,
  merchantSummary,
  selectMerchant,
  TokenEndpoint,
  type GrantOutcome,
  type MerchantCredentials,
} from '../../auth/index.js';
import { describeError } from '../../core/index.js';
import { dispatchersOf, platformFailure } from '../platform-access.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';

/**
 * Check 5: the merchants registered for our serial number (names and client ids only)
 * and one device-token grant: expiry, scopes, and whether `cnf` is our thumbprint (a
 * token without `cnf` is a warning: the agent accepts it).
 * The token itself stays in the run's state for the availability check.
 */
export async function checkToken(state: DiagState, signal: AbortSignal): Promise<Outcome> {
  const { config, endpoints, identity } = state;
  if (config === undefined || endpoints === undefined)
    return { status: 'skip', finding: 'needs the configuration (see config)' };
  const dispatchers = dispatchersOf(state);
  if (identity === undefined || dispatchers === undefined)
    return { status: 'skip', finding: 'needs the device certificate (see certificate)' };
  if (state.unreachable !== undefined)
    return { status: 'fail', finding: state.unreachable.finding, remedy: state.unreachable.remedy };
  if (config.auth.mode === 'custom_token') {
    // The device token needs the merchant's sign-in in a browser (docs/platform-contract.md, "Tokens", custom-token flow): nothing diag can do.
    return {
      status: 'skip',
      finding:
        "auth.mode is custom_token: the device token comes after the merchant's sign-in with the platform on the counter page (the agent's status says whether it is held)",
    };
  }
  const clock = { mono: () => performance.now(), wall: state.now };
  const endpoint = new TokenEndpoint({
    authUrl: endpoints.authUrl,
    deviceAuthUrl: endpoints.deviceAuthUrl,
    dispatchers,
    clock,
  });

  let merchants: MerchantCredentials[] = [];
  let clientId: string;
  let grant: Promise<GrantOutcome>;
  let what: string;
  if (config.auth.mode === 'client_credentials') {
    try {
      merchants = await fetchMerchantCredentials({
        authUrl: endpoints.authUrl,
        serialNumber: identity.serialNumber,
        dispatchers,
        clock,
        signal,
      });
    } catch (err) {
      return platformFailure(state, err, endpoints.authUrl);
    }
    let chosen: MerchantCredentials;
    try {
      chosen = selectMerchant(merchants, config.auth.merchantId).merchant;
    } catch (err) {
      return {
        status: 'fail',
        finding: describeError(err),
        remedy: 'set auth.merchantId to one of the listed merchants, or ask the acquirer to assign a merchant',
        facts: { merchants: merchants.map(merchantSummary) },
      };
    }
    clientId = chosen.clientId;
    what = chosen.merchantName;
    grant = endpoint.clientCredentials(chosen.clientId, chosen.clientSecret);
  } else {
    const { username, password, poweredClientId } = config.auth;
    if (username === undefined || password === undefined || username === '' || password === '') {
      return {
        status: 'fail',
        finding: 'auth.mode is password but auth.username or auth.password is not set',
        remedy: 'set auth.username and auth.password, or use auth.mode client_credentials',
      };
    }
    clientId = poweredClientId;
    what = `user ${username}`;
    grant = endpoint.password(poweredClientId, username, password);
  }
  const listed = merchants.map(merchantSummary);
  const names = listed.map((m) => `${m.merchantName} [${m.clientId}]`).join(', ');
  let outcome: GrantOutcome;
  try {
    outcome = await grant;
  } catch (err) {
    const failed = platformFailure(state, err, endpoints.deviceAuthUrl);
    return {
      ...failed,
      finding: `${names ? `merchants ${names}; ` : ''}token grant for ${what} failed: ${failed.finding}`,
      facts: { ...failed.facts, merchants: listed },
    };
  }
  let claims;
  try {
    claims = decodeJwtPayload(outcome.response.access_token);
  } catch (err) {
    return {
      status: 'fail',
      finding: `the token for ${what} cannot be read: ${describeError(err)}`,
      remedy: 'the platform issues unreadable tokens: contact the platform operator',
      facts: { merchants: listed },
    };
  }
  state.token = { value: outcome.response.access_token, clientId };
  const platformNow = outcome.timing.dateMs ?? outcome.timing.receivedAtMs;
  const expiresAt = new Date(claims.exp * 1000);
  const expiresInS = Math.round((expiresAt.getTime() - platformNow) / 1000);
  const scopes = (claims.scope ?? '').split(' ').filter((s) => s !== '');
  const bound = claims.cnf?.['x5t#S256'];
  const cnfMatches = bound === identity.thumbprint;
  const facts = {
    merchants: listed,
    clientId,
    merchantId: claims.entityId ?? null,
    scopes,
    expiresAt: expiresAt.toISOString(),
    expiresInSeconds: expiresInS,
    expiresInReported: outcome.response.expires_in,
    bound: bound !== undefined,
    cnfMatches,
  };
  const head = `${names ? `merchants ${names}; ` : ''}token for ${what}${claims.entityId ? ` (merchant ${claims.entityId})` : ''} expires in ${expiresInS} s, scopes ${scopes.join(' ') || '(none)'}`;
  if (bound !== undefined && !cnfMatches) {
    return {
      status: 'fail',
      finding: `${head}; bound to another certificate than this one`,
      remedy:
        'the token endpoint saw another client certificate: check for a TLS-terminating proxy between terminal and platform',
      facts,
    };
  }
  if (expiresInS <= config.auth.leewaySeconds) {
    return {
      status: 'fail',
      finding: `${head}: expired on arrival`,
      remedy: "check the terminal's and the platform's clocks (see clock)",
      facts,
    };
  }
  if (bound === undefined) {
    // The agent accepts it: machine-to-machine and password tokens carry no cnf unless the
    // platform adds the auth scope (docs/platform-contract.md, "Tokens"). Worth knowing, not in the way of sales.
    return {
      status: 'warn',
      finding: `${head}; not certificate-bound (no cnf): the token works from any connection`,
      remedy:
        'nothing to do for sales; if the acquirer requires certificate-bound tokens, ask the platform operator to issue cnf for this client',
      facts,
    };
  }
  return { status: 'ok', finding: `${head}; cnf matches our thumbprint`, facts };
}
