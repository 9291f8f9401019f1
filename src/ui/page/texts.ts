import type { AgentStatus, Transaction } from './types.js';

/** Words shown at the counter for states, steps and methods. */

const STEP_TEXT: Record<string, string> = {
  insertCard: 'Insert, tap or swipe the card',
  insert_card: 'Insert, tap or swipe the card',
  presentCard: 'Insert, tap or swipe the card',
  waitingCard: 'Insert, tap or swipe the card',
  cardPresented: 'Card read',
  card_read: 'Card read',
  pinRequested: 'Customer enters the PIN',
  enter_pin: 'Customer enters the PIN',
  pinEntered: 'PIN entered',
  removeCard: 'Remove the card',
  remove_card: 'Remove the card',
  processing: 'Authorizing…',
  authorizing: 'Authorizing…',
};

export function stepText(step: string, text?: string): string {
  return STEP_TEXT[step] ?? text ?? step;
}

export function methodText(t: { method?: string; scenario?: string }): string {
  switch (t.method) {
    case 'card':
      return 'Card';
    case 'manual':
      return 'Keyed entry';
    case 'moto':
      return 'MOTO';
    case 'walletA':
    case 'walletB':
      return `${t.method} ${t.scenario === 'MerchantScan' ? 'scan customer code' : 'QR for the customer'}`;
    default:
      return t.method ?? '';
  }
}

/** What the staff should be doing while the sale waits. */
export function pendingText(t: Transaction): string {
  if (t.state === 'in_flight') return 'Authorizing…';
  if (t.state === 'reversing') return 'Outcome unknown: the sale is being reversed';
  if (t.state === 'created') return 'Starting…';
  if (t.method === 'walletA' || t.method === 'walletB') {
    return t.scenario === 'MerchantScan' ? 'Scan the customer\'s code' : 'Show the QR code to the customer';
  }
  if (t.method === 'manual' || t.method === 'moto') return 'Key in the card on the reader';
  return 'Insert, tap or swipe the card';
}

export function outcomeText(state: string): { text: string; cls: string } {
  switch (state) {
    case 'approved':
      return { text: 'Approved', cls: 'approved' };
    case 'offline_stored':
      return { text: 'Approved (offline)', cls: 'offline' };
    case 'declined':
      return { text: 'Declined', cls: 'declined' };
    case 'failed':
      return { text: 'Failed', cls: 'failed' };
    case 'cancelled':
      return { text: 'Cancelled', cls: 'cancelled' };
    case 'reversed':
      return { text: 'Reversed', cls: 'reversed' };
    case 'needs_attention':
      return { text: 'Needs attention', cls: 'failed' };
    case 'pending':
      return { text: 'Pending at the platform', cls: 'other' };
    default:
      return { text: state, cls: 'other' };
  }
}

export function stateText(t: Transaction): string {
  let head = t.state.replace(/_/g, ' ');
  let message = t.message;
  // The engine's message often begins with the state ("approved: 7.50 EUR ...", "declined
  // after upload: Insufficient funds"): its words before the colon stand for the state, said once.
  if (message !== undefined && message.startsWith(head)) {
    const colon = message.indexOf(':');
    const words = colon < 0 ? '' : message.slice(0, colon);
    if (/^[a-z ]{1,40}$/i.test(words)) {
      head = words.trim();
      message = message.slice(colon + 1).trim();
    } else {
      message = message.slice(head.length).replace(/^[:\s]+/, '');
    }
    if (message === '') message = undefined;
  }
  // An operation's row is `approved` when the platform did it: it says what was done, not "approved".
  if (t.kind !== 'sale' && t.state === 'approved' && /^approved$/i.test(head)) head = DONE_WORD[t.kind] ?? 'done';
  const parts = [head];
  if (t.kind === 'sale') {
    if (t.capturedAmount > 0) parts.push(`captured ${t.capturedAmountText}`);
    if (t.refundedAmount > 0) parts.push(`refunded ${t.refundedAmountText}`);
    if (t.cancelledAmount > 0) parts.push(`cancelled ${t.cancelledAmountText}`);
  }
  if (t.offline) parts.push('offline');
  if (message) parts.push(clerkText(message));
  // Never the same words twice ("captured 12.34 EUR · 12.34 EUR"): a part already said, or only the row's amount, is left out.
  const said: string[] = [];
  for (const p of parts) {
    const bare = p.trim();
    if (bare === '' || bare === t.amountText || said.some((x) => x === bare || x.endsWith(` ${bare}`))) continue;
    // "captured" then "captured 12.34 EUR": the fuller words replace the short ones.
    const shorter = said.findIndex((x) => bare.startsWith(`${x} `));
    if (shorter >= 0) said[shorter] = bare;
    else said.push(bare);
  }
  return said.join(' · ');
}

const DONE_WORD: Record<string, string> = { cancel: 'cancelled', refund: 'refunded', capture: 'captured' };

/** What a row is: the method of a sale; "Refund of Card 12.34 EUR" for an operation. */
export function whatText(t: Transaction, related: Transaction | undefined): string {
  if (t.kind === 'sale') return methodText(t);
  const kind = t.kind.charAt(0).toUpperCase() + t.kind.slice(1);
  return related ? `${kind} of ${methodText(related)} ${related.amountText}` : kind;
}

/**
 * The amount column: money that went back to the customer (a cancel or refund done or under
 * way) is negative; a capture moves nothing back and a failed refund moved nothing.
 */
export function amountColumn(t: Transaction): string {
  const back = (t.kind === 'cancel' || t.kind === 'refund') && (t.state === 'approved' || t.state === 'pending' || t.state === 'in_flight');
  return back ? `−${t.amountText}` : t.amountText;
}

/** The question before a cancel or refund: what, how much, which card, for which merchant. */
export function confirmText(op: 'cancel' | 'refund', t: Transaction, amount: string | undefined, merchant: string | undefined): string {
  const how = amount !== undefined ? `${amount} ${t.currency} of ` : '';
  const card = t.maskedPan !== undefined ? ` on card ${t.maskedPan}` : '';
  return `${op === 'cancel' ? 'Cancel' : 'Refund'} ${how}${t.kind} ${t.amountText}${card}${merchant !== undefined ? ` for ${merchant}` : ''}?`;
}

/** The operation's result, kept on screen until the clerk's next action. */
export function operationResultText(op: 'cancel' | 'refund' | 'capture', t: Transaction): string {
  const name = op === 'cancel' ? 'Cancel' : op === 'refund' ? 'Refund' : 'Capture';
  const outcome = t.state === 'approved' ? 'done' : t.state === 'pending' ? 'pending at the platform, the list shows when it is final' : t.state.replace(/_/g, ' ');
  return `${name} ${t.amountText}: ${outcome}${t.message && t.message !== t.amountText ? ` (${t.message})` : ''}`;
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HOST_PORT = /\b(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]|[a-z0-9.-]+\.[a-z]{2,}|localhost):\d{2,5}\b/gi;
const SOCKET_CODE = /\s*\((?:E[A-Z]{3,}|UND_ERR_[A-Z_]+|ERR_[A-Z_]+)\)|\b(?:E(?:CONNREFUSED|CONNRESET|TIMEDOUT|HOSTUNREACH|NETUNREACH|NOTFOUND|AI_AGAIN)|UND_ERR_[A-Z_]+)\b/g;

/** Clerk-facing words: no raw ids, hosts or socket codes (those stay behind "details"). */
export function clerkText(text: string): string {
  return text
    .replace(UUID, 'the transaction')
    .replace(HOST_PORT, 'the platform')
    .replace(SOCKET_CODE, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** The header when the agent's event stream broke and it does not answer requests either. */
export const AGENT_NOT_ANSWERING = 'The agent is not answering: status unknown, do not rely on the badges';

/** The platform badge: the agent's one view of the platform (GET /api/v1/status `platform`). */
export function platformBadgeText(p: AgentStatus['platform']): string {
  if (p.online) return 'online';
  return p.state === 'unknown' ? 'platform …' : 'platform offline';
}

/** The full-screen hold of an unknown outcome: whether the goods may go, and the reversal's progress. */
export function holdText(t: Transaction, seconds: number): { title: string; progress: string; handOver: boolean } {
  switch (t.state) {
    case 'reversing':
      return {
        title: 'Do not hand over the goods',
        progress: `The platform did not answer. Reversing the sale, still trying after ${seconds} s. You can start the next sale; the reversal goes on.`,
        handOver: false,
      };
    case 'reversed':
      return { title: 'Do not hand over the goods', progress: 'The sale was reversed: nothing was charged. Take the payment again.', handOver: false };
    case 'failed':
    case 'declined':
    case 'cancelled':
      return { title: 'Do not hand over the goods', progress: `Nothing was charged${t.message ? `: ${t.message}` : ''}. Take the payment again.`, handOver: false };
    case 'approved':
      return { title: 'Approved: hand over the goods', progress: 'The platform confirmed the sale.', handOver: true };
    default:
      return { title: 'Do not hand over the goods', progress: t.message ?? 'A supervisor must check this sale with the platform.', handOver: false };
  }
}
