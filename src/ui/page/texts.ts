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
  if (t.state === 'reversing') return 'Outcome unknown: reversing the sale…';
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
  const parts = [head];
  if (t.capturedAmount > 0) parts.push(`captured ${t.capturedAmountText}`);
  if (t.refundedAmount > 0) parts.push(`refunded ${t.refundedAmountText}`);
  if (t.cancelledAmount > 0) parts.push(`cancelled ${t.cancelledAmountText}`);
  if (t.offline) parts.push('offline');
  if (message) parts.push(message);
  return parts.join(' · ');
}

/** The header when the agent's event stream broke and it does not answer requests either. */
export const AGENT_NOT_ANSWERING = 'The agent is not answering: status unknown, do not rely on the badges';

/** The platform badge: the agent's one view of the platform (GET /api/status `platform`). */
export function platformBadgeText(p: AgentStatus['platform']): string {
  if (p.online) return 'online';
  return p.state === 'unknown' ? 'platform …' : 'platform offline';
}
