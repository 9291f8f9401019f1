import { z } from 'zod';
import { AgentError, ErrorCodes, systemClock, type TimeSource } from '../core/index.js';
import {
  PlatformError,
  httpRequest,
  jsonBody,
  statusError,
  dispatcherFor,
  type DispatcherSource,
  readResponse,
} from '../platform/index.js';

/** A merchant credentials record (docs/platform-contract.md, "Endpoints"). `clientSecret` never leaves this process. */
export interface MerchantCredentials {
  merchantName: string;
  userDomain: string;
  clientId: string;
  clientSecret: string;
}

/** What may be shown of a merchant (status, logs, UI): everything but the secret. */
export interface MerchantSummary {
  merchantName: string;
  userDomain: string;
  clientId: string;
}

const recordSchema = z.looseObject({
  merchantName: z.string(),
  userDomain: z.string(),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
});
const listSchema = z.array(recordSchema);

export interface FetchCredentialsOptions {
  authUrl: string;
  serialNumber: string;
  dispatchers: DispatcherSource;
  clock?: TimeSource;
  signal?: AbortSignal;
}

/**
 * Merchant credentials (docs/platform-contract.md, "Tokens"): over mutual TLS, the merchants registered for this terminal's serial
 * number. 403 = the platform does not know the terminal; 401 = it did not accept the
 * certificate.
 */
export async function fetchMerchantCredentials(opts: FetchCredentialsOptions): Promise<MerchantCredentials[]> {
  const url = `${opts.authUrl.replace(/\/+$/, '')}/oauth2-mtls/v1/merchants-credentials?serial_number=${encodeURIComponent(opts.serialNumber)}`;
  const req = { operation: 'merchants-credentials', method: 'GET' as const, url };
  const clock = opts.clock ?? systemClock();
  const res = await httpRequest(
    {
      ...req,
      dispatcher: dispatcherFor(opts.dispatchers, url),
      headers: { accept: 'application/json' },
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
    clock,
  );
  if (res.status === 403 || res.status === 401) {
    const base = statusError(req, res, clock);
    const unknown = res.status === 403;
    throw new PlatformError(
      unknown
        ? `the platform does not know terminal ${opts.serialNumber}: register the serial number, or check the device certificate`
        : `the platform did not accept the device certificate of terminal ${opts.serialNumber}`,
      {
        category: 'auth',
        code: unknown ? ErrorCodes.AUTH_UNKNOWN_TERMINAL : ErrorCodes.AUTH_CERT_REFUSED,
        operation: req.operation,
        method: req.method,
        status: res.status,
        ...(base.errorCode !== undefined ? { errorCode: base.errorCode } : {}),
        ...(base.errorMessage !== undefined ? { errorMessage: base.errorMessage } : {}),
        outcomeUnknown: false,
      },
    );
  }
  if (res.status < 200 || res.status > 299) throw statusError(req, res, clock);
  const list = readResponse(listSchema, jsonBody(req, res), req, res.status);
  return list.map((r) => ({
    merchantName: r.merchantName,
    userDomain: r.userDomain,
    clientId: r.clientId,
    clientSecret: r.clientSecret,
  }));
}

export function summary(m: MerchantCredentials): MerchantSummary {
  return { merchantName: m.merchantName, userDomain: m.userDomain, clientId: m.clientId };
}

/**
 * The merchant a terminal acts for by default: the configured one (by clientId or
 * merchantName, case-insensitive for names), else the only one, else the first in the
 * platform's order (`ambiguous` tells the caller to warn).
 */
export function selectMerchant(
  list: readonly MerchantCredentials[],
  wanted: string | undefined,
): { merchant: MerchantCredentials; ambiguous: boolean } {
  const first = list[0];
  if (first === undefined) {
    throw new AgentError(
      ErrorCodes.AUTH_NO_MERCHANT,
      'the platform lists no merchant for this terminal: ask the acquirer to assign one',
    );
  }
  if (wanted !== undefined && wanted !== '') {
    const found = findMerchant(list, wanted);
    if (found === undefined) {
      throw new AgentError(
        ErrorCodes.AUTH_NO_MERCHANT,
        `auth.merchantId ${JSON.stringify(wanted)} is not among this terminal's merchants (${list.map((m) => `${m.merchantName} [${m.clientId}]`).join(', ')})`,
        { details: { wanted, merchants: list.map(summary) } },
      );
    }
    return { merchant: found, ambiguous: false };
  }
  return { merchant: first, ambiguous: list.length > 1 };
}

export function findMerchant(list: readonly MerchantCredentials[], wanted: string): MerchantCredentials | undefined {
  return (
    list.find((m) => m.clientId === wanted) ?? list.find((m) => m.merchantName.toLowerCase() === wanted.toLowerCase())
  );
}
