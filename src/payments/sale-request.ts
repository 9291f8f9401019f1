import { AgentError, ErrorCodes } from '../core/index.js';
import type { Config } from '../config/index.js';
import type { MotoDetails, SaleMethod, SaleOrder, SaleRequest, SaleVia, WalletScenario } from './api.js';
import { assertAmount, normalizeCurrency } from './money.js';

export interface ValidSale {
  method: SaleMethod;
  scenario: WalletScenario | undefined;
  amount: number;
  currency: string;
  merchantId: string | undefined;
  moto: MotoDetails | undefined;
  walletId: string | undefined;
  via: SaleVia;
  /** Terminal QR call only (its order id may still be missing: then the client transaction id). */
  order: SaleOrder | undefined;
  reference: string | undefined;
}

/** Longest caller reference (docs/local-api.md, "Caller reference"): a receipt or order number, not a note. */
export const SALE_REFERENCE_MAX_LENGTH = 64;
/** Printable: no control, format or unassigned characters (they would corrupt a log line or a receipt). */
const PRINTABLE = /^[^\p{C}]+$/u;

/** Why a caller reference cannot be kept, or undefined when it can (trimmed first). */
export function saleReferenceProblem(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return 'must not be empty';
  if ([...text].length > SALE_REFERENCE_MAX_LENGTH) return `must be at most ${SALE_REFERENCE_MAX_LENGTH} characters`;
  if (!PRINTABLE.test(text)) return 'must be printable text (no control characters)';
  return undefined;
}

const METHODS: readonly SaleMethod[] = ['card', 'manual', 'moto', 'walletA', 'walletB'];
const SCENARIOS: readonly WalletScenario[] = ['ConsumerScan', 'MerchantScan'];
const VIAS: readonly SaleVia[] = ['process', 'qrTerminal'];

function bad(message: string, details: Record<string, unknown> = {}): AgentError {
  return new AgentError(ErrorCodes.INPUT_INVALID, message, { details });
}

function optionalText(value: unknown, name: string, max = 128): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw bad(`${name} must be a non-empty text of at most ${max} characters`, { field: name });
  return value.trim();
}

/** Checks a sale request before anything is journaled (docs/architecture.md, "Invariants" 6: bad input gets a clear error). */
export function validateSale(req: SaleRequest, config: Config): ValidSale {
  if (typeof req !== 'object' || req === null) throw bad('a sale needs method, amount and currency');
  if (!METHODS.includes(req.method)) throw bad(`method must be one of ${METHODS.join(', ')}`, { field: 'method' });
  const currency = normalizeCurrency(req.currency ?? config.payments.defaultCurrency);
  assertAmount(req.amount, currency);
  const wallet = req.method === 'walletA' || req.method === 'walletB';
  let scenario: WalletScenario | undefined;
  if (wallet) {
    scenario = req.scenario ?? 'ConsumerScan';
    if (!SCENARIOS.includes(scenario))
      throw bad(`scenario must be ConsumerScan or MerchantScan`, { field: 'scenario' });
  } else if (req.scenario !== undefined) {
    throw bad('scenario applies to wallet sales only', { field: 'scenario' });
  }
  const walletId = optionalText(req.walletId, 'walletId', 256);
  if (walletId !== undefined && scenario !== 'MerchantScan')
    throw bad('walletId applies to merchant-scan wallet sales only', { field: 'walletId' });
  let moto: MotoDetails | undefined;
  if (req.method === 'moto') {
    const m = req.moto ?? {};
    moto = {};
    for (const key of ['orderChannel', 'zipCode', 'houseNumber', 'email', 'phone'] as const) {
      const v = optionalText(m[key], `moto.${key}`);
      if (v !== undefined) moto[key] = v;
    }
    const avs = [moto.orderChannel, moto.zipCode, moto.houseNumber].filter((v) => v !== undefined).length;
    // With address verification all three; without it e-mail or phone (docs/platform-contract.md, "Decisions where the spec is silent", MOTO marker).
    if (avs > 0 && avs < 3)
      throw bad('MOTO with address verification needs orderChannel, zipCode and houseNumber', { field: 'moto' });
    if (avs === 0 && moto.email === undefined && moto.phone === undefined) {
      throw bad('MOTO needs the address (orderChannel, zipCode, houseNumber) or the customer e-mail or phone', {
        field: 'moto',
      });
    }
  } else if (req.moto !== undefined) {
    throw bad('moto details apply to MOTO sales only', { field: 'moto' });
  }
  const { via, order } = validateVia(req, scenario);
  const merchantId = optionalText(req.merchantId, 'merchantId') ?? config.auth.merchantId;
  let reference: string | undefined;
  if (req.reference !== undefined && req.reference !== null) {
    const problem = typeof req.reference === 'string' ? saleReferenceProblem(req.reference) : 'must be text';
    if (problem !== undefined) throw bad(`reference ${problem}`, { field: 'reference' });
    reference = req.reference.trim();
  }
  return {
    method: req.method,
    scenario,
    amount: req.amount,
    currency,
    merchantId,
    moto,
    walletId,
    via,
    order,
    reference,
  };
}

/**
 * The terminal QR call (docs/platform-contract.md, "Endpoints") carries a scanned consumer code, so
 * it is a walletA / walletB merchant scan only; its order travels with no other call.
 */
function validateVia(
  req: SaleRequest,
  scenario: WalletScenario | undefined,
): { via: SaleVia; order: SaleOrder | undefined } {
  const via = req.via ?? 'process';
  if (!VIAS.includes(via)) throw bad(`via must be one of ${VIAS.join(', ')}`, { field: 'via' });
  if (via === 'qrTerminal') {
    if (req.method !== 'walletA' && req.method !== 'walletB') {
      throw bad(
        `the terminal QR call (via qrTerminal) is for walletA and walletB merchant-scan sales only, not ${req.method}`,
        { field: 'via' },
      );
    }
    if (scenario !== 'MerchantScan')
      throw bad(
        'the terminal QR call (via qrTerminal) needs scenario MerchantScan: the terminal scans the customer code',
        { field: 'via' },
      );
  }
  if (req.order === undefined || req.order === null) return { via, order: undefined };
  if (via !== 'qrTerminal')
    throw bad('order applies to the terminal QR call (via qrTerminal) only', { field: 'order' });
  if (typeof req.order !== 'object')
    throw bad('order must be an object with orderId and optionally orderDescription', { field: 'order' });
  const orderId = optionalText(req.order.orderId, 'order.orderId', 64);
  if (orderId === undefined) throw bad('order.orderId is required when an order is given', { field: 'order.orderId' });
  const description = req.order.orderDescription;
  if (
    description !== undefined &&
    description !== null &&
    (typeof description !== 'string' || description.length > 256)
  ) {
    throw bad('order.orderDescription must be a text of at most 256 characters', { field: 'order.orderDescription' });
  }
  return { via, order: { orderId, ...(typeof description === 'string' ? { orderDescription: description } : {}) } };
}
