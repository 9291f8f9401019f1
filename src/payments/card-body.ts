import type { CardData, EntryMode, PinData } from '../devices/index.js';
import type { ProcessRequest } from '../platform/index.js';
import type { MotoDetails } from './api.js';
import type { CardSecret, JournalRow } from './journal/index.js';

/**
 * The process body of a card sale (docs/platform-contract.md, "Decisions where the spec is
 * silent", card fields in the process body):
 * entryMode, PIN fields and MOTO address top level; the card in `instrument.card`; MOTO
 * contact details in `instrument.email` / `instrument.phone`. A MOTO sale has no marker of
 * its own: keyed entry with those contact or address fields is what the contract describes
 * (same section, MOTO). The offline uploader sends the same body with
 * `offlineTransaction: true`.
 */
export function cardProcessBody(
  sale: Pick<JournalRow, 'clientTransactionId' | 'clientDateTime' | 'amount' | 'currency'>,
  channel: string,
  entryMode: EntryMode,
  card: CardData,
  pin?: PinData,
  moto?: MotoDetails,
): ProcessRequest {
  return {
    clientDateTime: sale.clientDateTime,
    channel,
    clientNewTransactionId: sale.clientTransactionId,
    authorizationAmount: { amount: sale.amount, currency: sale.currency },
    entryMode,
    instrument: {
      instrumentType: 'card',
      card: {
        maskedPan: card.maskedPan,
        scheme: card.scheme,
        expiry: card.expiry,
        encryptedData: card.encryptedData,
        ksn: card.ksn,
      },
      ...(moto?.email !== undefined ? { email: moto.email } : {}),
      ...(moto?.phone !== undefined ? { phone: moto.phone } : {}),
    },
    ...(pin !== undefined ? { ksn: pin.ksn, pinblock: pin.pinblock, pinblockFormat: pin.format } : {}),
    ...(moto?.orderChannel !== undefined ? { orderChannel: moto.orderChannel } : {}),
    ...(moto?.zipCode !== undefined ? { zipCode: moto.zipCode } : {}),
    ...(moto?.houseNumber !== undefined ? { houseNumber: moto.houseNumber } : {}),
  };
}

export function cardSecretOf(card: CardData, pin?: PinData): CardSecret {
  return {
    encryptedData: card.encryptedData,
    ksn: card.ksn,
    expiry: card.expiry,
    ...(pin !== undefined ? { pinblock: pin.pinblock, pinKsn: pin.ksn, pinblockFormat: pin.format } : {}),
  };
}

/** Card data and PIN back from the journal (the offline uploader rebuilds the body from these). */
export function cardFromRow(row: JournalRow): { card: CardData; pin?: PinData } | undefined {
  const s = row.cardSecret;
  if (s === undefined || row.maskedPan === undefined) return undefined;
  const card: CardData = {
    maskedPan: row.maskedPan,
    scheme: row.scheme ?? '',
    expiry: s.expiry,
    encryptedData: s.encryptedData,
    ksn: s.ksn,
  };
  if (s.pinblock !== undefined && s.pinKsn !== undefined && s.pinblockFormat !== undefined) {
    return { card, pin: { pinblock: s.pinblock, ksn: s.pinKsn, format: s.pinblockFormat } };
  }
  return { card };
}
