import { moneyOf, t as say, type TextKey } from './i18n.js';
import { beingChecked, type AgentStatus, type Transaction } from './types.js';
import { unknownPlatformStatus } from './unknown-status.js';

/**
 * The sentences the counter shows for states, steps, methods and results, built from the
 * catalog of the page's language (i18n.ts, texts-en.ts, texts-de.ts).
 */

const STEP_KEY: Record<string, TextKey> = {
  insertCard: 'step.insertCard',
  insert_card: 'step.insertCard',
  presentCard: 'step.insertCard',
  waitingCard: 'step.insertCard',
  cardPresented: 'step.cardRead',
  card_read: 'step.cardRead',
  pinRequested: 'step.enterPin',
  enter_pin: 'step.enterPin',
  pinEntered: 'step.pinEntered',
  removeCard: 'step.removeCard',
  remove_card: 'step.removeCard',
  processing: 'step.authorizing',
  authorizing: 'step.authorizing',
};

export function stepText(step: string, text?: string): string {
  const key = STEP_KEY[step];
  return key !== undefined ? say(key) : (text ?? step);
}

export function methodText(t: { method?: string; scenario?: string }): string {
  switch (t.method) {
    case 'card':
      return say('method.card');
    case 'manual':
      return say('methodText.manual');
    case 'moto':
      return say('method.moto');
    case 'walletA':
    case 'walletB':
      return say(t.scenario === 'MerchantScan' ? 'methodText.walletScan' : 'methodText.walletQr', { wallet: t.method });
    default:
      return t.method ?? '';
  }
}

/** What the staff should be doing while the sale waits. */
export function pendingText(t: Transaction): string {
  if (t.state === 'in_flight' && beingChecked(t)) return say('pending.beingChecked');
  // Its answer lost, the agent asks the platform: no longer "authorizing" (the view says so, docs/local-api.md).
  if (t.state === 'in_flight') return t.outcomeBeingChecked === true ? say('pending.lookup') : say('step.authorizing');
  if (t.state === 'reversing') return say('pending.reversing');
  if (t.state === 'created') return say('pending.starting');
  // A sale's own `pending`: its QR expired and the platform's word is awaited (docs/payments.md, "Wallet QR, consumer scan").
  if (t.state === 'pending' && t.kind === 'sale') return say('pending.qrExpired');
  if (t.method === 'walletA' || t.method === 'walletB')
    return say(t.scenario === 'MerchantScan' ? 'pending.scanCode' : 'pending.showQr');
  if (t.method === 'manual' || t.method === 'moto') return say('pending.keyIn');
  return say('step.insertCard');
}

const OUTCOME_CLASS: Record<string, string> = {
  approved: 'approved',
  offline_stored: 'offline',
  declined: 'declined',
  failed: 'failed',
  cancelled: 'cancelled',
  reversed: 'reversed',
  needs_attention: 'failed',
  pending: 'other',
};

export function outcomeText(state: string): { text: string; cls: string } {
  const cls = OUTCOME_CLASS[state];
  return cls === undefined
    ? { text: stateWord(state), cls: 'other' }
    : { text: say(`outcome.${state}` as TextKey), cls };
}

/**
 * The headlines a sale's state alone does not tell exactly (docs/counter-page.md, "Local API
 * and counter page", headlines): each has an `outcome.` sentence for the sale panel and a
 * `state.` phrase for today's list, the same words.
 */
export type SaleHeadline =
  | 'approvedCaptured'
  | 'approvedPaid'
  | 'authorized'
  | 'storedOffline'
  | 'sentCaptured'
  | 'sentAuthorized'
  | 'sentDeclined'
  | 'reversedNothingCharged'
  | 'reversedRefunded'
  | 'beingChecked';

const HEADLINE_CLASS: Record<SaleHeadline, string> = {
  approvedCaptured: 'approved',
  approvedPaid: 'approved',
  authorized: 'approved',
  storedOffline: 'offline',
  sentCaptured: 'approved',
  sentAuthorized: 'approved',
  sentDeclined: 'declined',
  reversedNothingCharged: 'reversed',
  reversedRefunded: 'reversed',
  beingChecked: 'attention',
};

const isCardMethod = (method: string | undefined): boolean =>
  method === 'card' || method === 'manual' || method === 'moto';

/**
 * Which headline a sale has, from the view's fields only, never from the agent's English
 * message: captured or only authorized by what the platform captured (a card sale); paid (a
 * wallet sale: it has no capture, the wallet paid once approved, docs/payments.md
 * "Capture, cancel, refund"); stored
 * offline or sent by the state (an uploaded sale keeps `offline` and takes the platform's
 * state, "Offline card sale and upload"); being checked by `outcomeBeingChecked`; "nothing
 * charged" only for a reversal the platform confirmed by a cancel (a refund gave the money back).
 * Undefined: the state's own word says it exactly.
 */
export function saleHeadline(t: Transaction): SaleHeadline | undefined {
  if (t.kind !== 'sale') return undefined;
  if (t.outcomeBeingChecked === true) return 'beingChecked';
  switch (t.state) {
    case 'offline_stored':
      return 'storedOffline';
    case 'approved': {
      if (!isCardMethod(t.method)) return 'approvedPaid';
      const open = t.amount - t.cancelledAmount > 0;
      const authorizedOnly = t.capturedAmount === 0;
      // Cancelled in full before any capture: nothing is left to capture; the row says what was cancelled.
      if (authorizedOnly && !open) return undefined;
      if (t.offline) return authorizedOnly ? 'sentAuthorized' : 'sentCaptured';
      return authorizedOnly ? 'authorized' : 'approvedCaptured';
    }
    case 'declined':
    case 'failed':
      // An uploaded sale the platform refused, failed or let expire (src/payments, uploadSettlement).
      return t.offline ? 'sentDeclined' : undefined;
    case 'reversed':
      return t.refundedAmount > 0 ? 'reversedRefunded' : 'reversedNothingCharged';
    default:
      return undefined;
  }
}

/** A sale's headline on the sale panel: the platform's unknown word to check, else its headline, else the state's outcome. */
export function outcomeOf(t: Transaction): { text: string; cls: string } {
  const status = unknownPlatformStatus(t);
  if (status !== undefined) return { text: say('outcome.unknownStatus', { status }), cls: 'attention' };
  const headline = saleHeadline(t);
  return headline !== undefined
    ? { text: say(`outcome.${headline}`), cls: HEADLINE_CLASS[headline] }
    : outcomeText(t.state);
}

/** A journal state in the page's language ("needs attention", "braucht Prüfung"). */
export function stateWord(state: string): string {
  const key = `state.${state}` as TextKey;
  const word = say(key);
  return word === key ? state.replace(/_/g, ' ') : word;
}

/**
 * A row's state in the catalog's words: the sale's headline (the same words as the sale
 * panel's), with what was captured (when not all of it), refunded or cancelled of a sale, and
 * whether it was taken offline when the headline does not say so. The agent's reason (its
 * English `message`) is not part of it: the list shows it as the row's title and the
 * operations panel behind "details" (docs/counter-page.md, "Local API and counter page",
 * languages).
 */
export function stateText(t: Transaction): string {
  const headline = saleHeadline(t);
  let head = headline !== undefined ? say(`state.${headline}`) : stateWord(t.state);
  // An operation's row is `approved` when the platform did it: it says what was done, not "approved".
  if (t.kind !== 'sale' && t.state === 'approved') head = doneWord(t.kind);
  const unknown = unknownPlatformStatus(t);
  if (unknown !== undefined) head = say('state.unknownStatus', { status: unknown });
  const parts = [head];
  if (t.kind === 'sale') {
    // "approved and captured" says the whole amount; a part captured is said with its amount.
    const allCaptured =
      (headline === 'approvedCaptured' || headline === 'sentCaptured') &&
      t.capturedAmount >= t.amount - t.cancelledAmount;
    if (t.capturedAmount > 0 && !allCaptured)
      parts.push(say('state.captured', { amount: moneyOf(t, t.capturedAmount, t.capturedAmountText) }));
    if (t.refundedAmount > 0)
      parts.push(say('state.refunded', { amount: moneyOf(t, t.refundedAmount, t.refundedAmountText) }));
    if (t.cancelledAmount > 0)
      parts.push(say('state.cancelledAmount', { amount: moneyOf(t, t.cancelledAmount, t.cancelledAmountText) }));
  }
  const saysOffline =
    headline === 'storedOffline' ||
    headline === 'sentCaptured' ||
    headline === 'sentAuthorized' ||
    headline === 'sentDeclined';
  if (t.offline && !saysOffline) parts.push(say('state.offline'));
  return parts.join(' · ');
}

function doneWord(kind: string): string {
  return kind === 'cancel' || kind === 'refund' || kind === 'capture' ? say(`done.${kind}`) : say('ops.done');
}

/** A kind as a noun ("Refund", "sale"). */
export function kindWord(kind: string): string {
  return kind === 'sale' || kind === 'cancel' || kind === 'refund' || kind === 'capture' ? say(`kind.${kind}`) : kind;
}

/** What a row is: the method of a sale; "Refund of Card 12.34 EUR" for an operation. */
export function whatText(t: Transaction, related: Transaction | undefined): string {
  if (t.kind === 'sale') return methodText(t);
  return related
    ? say('kind.operationOf', { kind: kindWord(t.kind), what: methodText(related), amount: moneyOf(related) })
    : kindWord(t.kind);
}

/**
 * The amount column: money that went back to the customer (a cancel or refund done or under
 * way) is negative; a capture moves nothing back and a failed refund moved nothing.
 */
export function amountColumn(t: Transaction): string {
  const back =
    (t.kind === 'cancel' || t.kind === 'refund') &&
    (t.state === 'approved' || t.state === 'pending' || t.state === 'in_flight');
  return back ? `−${moneyOf(t)}` : moneyOf(t);
}

/** The question before a cancel or refund: what, how much, which card, for which merchant. */
export function confirmText(
  op: 'cancel' | 'refund',
  t: Transaction,
  part: string | undefined,
  merchant: string | undefined,
): string {
  const kind = kindWord(t.kind);
  const what =
    part !== undefined
      ? say('confirm.part', { part, kind, amount: moneyOf(t) })
      : say('confirm.whole', { kind, amount: moneyOf(t) });
  const card = t.maskedPan !== undefined ? say('confirm.card', { pan: t.maskedPan }) : '';
  const whose = merchant !== undefined ? say('confirm.merchant', { merchant }) : '';
  const text = say(op === 'cancel' ? 'confirm.cancel' : 'confirm.refund', { what, card, merchant: whose });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The operation's result, kept on screen until the clerk's next action. */
export function operationResultText(op: 'cancel' | 'refund' | 'capture', t: Transaction): string {
  const outcome =
    t.state === 'approved' ? say('ops.done') : t.state === 'pending' ? say('ops.pending') : stateWord(t.state);
  const amount = moneyOf(t);
  return say('ops.result', { op: kindWord(op), amount, outcome });
}

/** The platform badge: the agent's one view of the platform (GET /api/v1/status `platform`). */
export function platformBadgeText(p: AgentStatus['platform']): string {
  if (p.online) return say('status.online');
  return p.state === 'unknown' ? say('status.unknown') : say('status.offline');
}

/**
 * The full-screen hold of an unknown outcome: whether the goods may go, the reversal's
 * progress, and how many times the agent has tried to reverse (`attempts`, when known).
 */
export function holdText(
  t: Transaction,
  seconds: number,
  attempts: number | undefined,
): { title: string; progress: string; attempts?: string; detail?: string; handOver: boolean } {
  // The agent's reason (English) is the detail behind "details", never part of the clerk's sentence.
  const detail = t.message ? { detail: t.message } : {};
  switch (t.state) {
    case 'reversing':
      return {
        title: say('hold.stop'),
        progress: say('hold.reversing', { seconds }),
        ...(attempts !== undefined && attempts > 0 ? { attempts: say('hold.attempt', { n: attempts }) } : {}),
        handOver: false,
      };
    case 'reversed':
      // A captured sale is reversed by a refund: the money went back, it was charged.
      return {
        title: say('hold.stop'),
        progress: say(t.refundedAmount > 0 ? 'hold.reversedRefunded' : 'hold.reversed'),
        handOver: false,
      };
    case 'failed':
    case 'declined':
    case 'cancelled':
      return { title: say('hold.stop'), progress: say('hold.notCharged'), ...detail, handOver: false };
    case 'approved':
      return { title: say('hold.go'), progress: say('hold.approved'), handOver: true };
    default:
      return { title: say('hold.stop'), progress: say('hold.supervisor'), ...detail, handOver: false };
  }
}
