import { randomInt } from 'node:crypto';
import { validationError } from './http-errors.js';
import type { ProcessBody } from './schemas.js';
import { addEvent, moveMoney } from './bookkeeping.js';
import { createTransaction, type PaymentDeps } from './transaction.js';
import type { Caller, SimTransaction } from './types.js';

/**
 * Checks the card fields of a process body (card fields top level, card data in
 * `instrument.card`: docs/platform-contract.md, "Decisions where the spec is silent").
 * A MOTO sale is a card sale with the customer's contact (`instrument.email` / `phone`) or
 * the address verification fields (`orderChannel`, `zipCode`, `houseNumber`); the
 * standard profile also still takes the old `paymentScenario: "Moto"` as one. MOTO with
 * any entryMode other than Keyed is not processed and answers a validation message (the
 * platform's own rule; same section, MOTO).
 */
export function checkCardSale(body: ProcessBody): void {
  const { instrument } = body;
  if (instrument.card === undefined) throw validationError('instrument.card is required for a card sale');
  if (instrument.paymentScenario !== undefined && instrument.paymentScenario !== 'Moto') {
    throw validationError(
      `instrument.paymentScenario ${instrument.paymentScenario} applies to wallet payments, not to cards`,
    );
  }
  if (body.entryMode === undefined) throw validationError('entryMode is required for a card sale');
  const address = [body.orderChannel, body.zipCode, body.houseNumber];
  const given = address.filter((f) => f !== undefined).length;
  const contact = instrument.email !== undefined || instrument.phone !== undefined;
  if (instrument.paymentScenario === 'Moto' || given > 0 || contact) {
    if (body.entryMode !== 'Keyed')
      throw validationError(`a MOTO sale must use entryMode Keyed, not ${body.entryMode}`, 'MOTO_ENTRY_MODE');
    // With address verification orderChannel, zipCode and houseNumber are added; without it
    // the contact details are e-mail or phone in the instrument.
    if (given > 0 && given < 3)
      throw validationError('MOTO with address verification needs orderChannel, zipCode and houseNumber');
    if (given === 0 && !contact)
      throw validationError('MOTO without address verification needs instrument.email or instrument.phone');
  }
  // Online PIN translation: the three fields travel together (docs/platform-contract.md, "Endpoints").
  const pin = [body.ksn, body.pinblock, body.pinblockFormat].filter((f) => f !== undefined).length;
  if (pin > 0 && pin < 3) throw validationError('online PIN needs ksn, pinblock and pinblockFormat together');
}

/**
 * Deterministic declines for tests: a card whose masked PAN ends in 0002, or an amount
 * whose minor units end in 51, is refused (docs/demo-platform.md, "Demo platform").
 */
function declineReason(body: ProcessBody): { code: string; message: string } | undefined {
  if (body.instrument.card?.maskedPan.endsWith('0002'))
    return { code: '05', message: 'Declined by the issuer: do not honour' };
  if (body.authorizationAmount.amount % 100 === 51)
    return { code: '51', message: 'Declined by the issuer: insufficient funds' };
  return undefined;
}

/** The instrument as the record shows it: the masked PAN and scheme only, never card data. */
function publicInstrument(body: ProcessBody): Record<string, unknown> {
  const { instrument } = body;
  return {
    instrumentType: 'card',
    ...(instrument.paymentScenario !== undefined ? { paymentScenario: instrument.paymentScenario } : {}),
    card: { maskedPan: instrument.card?.maskedPan, scheme: instrument.card?.scheme },
  };
}

/**
 * A card sale: `Refused` (recorded, nothing charged) or approved, then `Captured` with
 * immediate capture (strict profile: `Accepted` with the capture event) or `Accepted` (authorized, capturable) with deferred capture
 * (card sale statuses in docs/platform-contract.md, "Decisions where the spec is silent").
 * Offline uploads keep the client's clientDateTime and id (same section, offline upload)
 * and follow the same rules.
 */
export function processCard(deps: PaymentDeps, caller: Caller, body: ProcessBody, fingerprint: string): SimTransaction {
  const now = deps.ctx.now();
  const decline = declineReason(body);
  const tx = createTransaction(deps, caller, {
    now,
    type: 'Payment',
    clientTransactionId: body.clientNewTransactionId,
    status: 'Refused',
    instrumentType: 'card',
    paymentScenario: body.instrument.paymentScenario,
    amount: body.authorizationAmount,
    fingerprint,
  });
  addEvent(tx, now, 'cardRequest', {
    clientDateTime: body.clientDateTime,
    authorizationAmount: { ...body.authorizationAmount },
    instrument: publicInstrument(body),
    entryMode: body.entryMode,
    ...(body.offlineTransaction === true ? { offlineTransaction: true } : {}),
    ...(body.pinblock !== undefined ? { onlinePin: true } : {}),
    ...(body.orderChannel !== undefined ? { orderChannel: body.orderChannel } : {}),
    source: { ...caller.source },
    requestor: {},
  });
  const acquirer = { acquirerId: caller.merchant.acquirerId, acquirerName: caller.merchant.acquirerName };
  if (decline !== undefined) {
    addEvent(tx, now, 'cardAuthorizationResult', {
      result: 'Refused',
      resultMessage: decline.message,
      resultData: { ...acquirer, responseCode: decline.code },
    });
    return tx;
  }
  addEvent(tx, now, 'cardAuthorizationResult', {
    result: 'Accepted',
    resultMessage: 'Approved',
    resultData: {
      ...acquirer,
      responseCode: '00',
      authorizationCode: String(randomInt(0, 1_000_000)).padStart(6, '0'),
    },
  });
  const amount = body.authorizationAmount.amount;
  if (caller.merchant.captureMode === 'immediate') {
    // The strict profile answers the spec's observed process statuses only (Initialized,
    // Accepted): the capture shows in the cardCaptureResult event alone, as after a capture
    // (docs/demo-platform.md, "Demo platform", strict profile, operations).
    tx.record.transactionStatus = deps.ctx.profile.strict ? 'Accepted' : 'Captured';
    tx.captured = amount;
    addEvent(tx, now, 'cardCaptureResult', {
      captureAmount: { ...body.authorizationAmount },
      result: 'Accepted',
      resultMessage: 'Captured',
      resultData: acquirer,
    });
    moveMoney(deps.ledger, tx, now, 'sale', amount, amount);
  } else {
    tx.record.transactionStatus = 'Accepted';
    moveMoney(deps.ledger, tx, now, 'authorization', amount, amount);
  }
  return tx;
}
