import type { ApiTransaction } from '../ui/index.js';

/** Human output of transactions for the CLI; `--json` prints the API's answer instead. */

const PENDING = new Set(['created', 'awaiting_customer', 'in_flight', 'pending', 'reversing']);

export function isFinalState(state: string): boolean {
  return !PENDING.has(state);
}

/**
 * Exit status of a finished sale: 0 when the money is (or will be) collected; 3 when the
 * platform answered a status word the agent does not know (not final: the agent follows
 * it, and a script must not take the sale again); else 2.
 */
export function saleExitCode(t: ApiTransaction): number {
  if (t.state === 'approved' || t.state === 'offline_stored') return 0;
  return isUnknownStatusSale(t) ? 3 : 2;
}

/** The agent set the sale aside because the platform's status word is one it does not know (its message says so). */
function isUnknownStatusSale(t: ApiTransaction): boolean {
  return (
    t.kind === 'sale' &&
    t.state === 'needs_attention' &&
    t.platformStatus !== undefined &&
    (t.message ?? '').startsWith(`the platform says ${t.platformStatus}:`)
  );
}

/**
 * Exit status of a cancel, refund or capture: 0 done, 3 pending at the platform (the agent
 * follows it until final: `terminal-agent status ID` shows when it is), 2 otherwise.
 */
export function operationExitCode(t: ApiTransaction): number {
  if (t.state === 'approved') return 0;
  return t.state === 'pending' || t.state === 'in_flight' ? 3 : 2;
}

/** The line that follows an operation not final yet: where to look next. */
export function pendingNote(t: ApiTransaction): string | undefined {
  if (t.state === 'pending')
    return `pending at the platform: the agent follows it until it is final; terminal-agent status ${t.clientTransactionId} shows the outcome`;
  // Answered while the journal could not write (docs/payments.md, "Capture, cancel, refund"): not repeated, written once it can.
  if (t.state === 'in_flight' && (t.message ?? '').startsWith('outcome being recorded')) {
    return `the platform answered; the outcome is being recorded once the journal can write (do not repeat it); terminal-agent status ${t.clientTransactionId} shows it`;
  }
  // Sending it again could do it twice (a refund by web whose id the platform never recorded): docs/platform-contract.md, "Decisions where the spec is silent".
  if (t.state === 'in_flight')
    return `the outcome is not known yet: the agent is checking it at the platform (do not repeat it); terminal-agent status ${t.clientTransactionId} shows the outcome`;
  return undefined;
}

function method(t: ApiTransaction): string {
  if (t.method === undefined) return '';
  return t.scenario !== undefined ? `${t.method} ${t.scenario}` : t.method;
}

/** One line per transaction, for lists. */
export function transactionLine(t: ApiTransaction): string {
  const time = t.createdAt.length >= 19 ? t.createdAt.slice(11, 19) : t.createdAt;
  const cols = [
    time,
    t.clientTransactionId,
    t.kind.padEnd(7),
    t.amountText.padStart(14),
    t.state.padEnd(16),
    method(t),
    t.maskedPan ?? '',
    t.offline ? 'offline' : '',
    t.reference !== undefined ? `ref ${JSON.stringify(t.reference)}` : '',
  ];
  return cols.filter((c) => c !== '').join('  ');
}

/** A few lines describing one transaction. */
export function transactionDetail(t: ApiTransaction): string {
  const lines = [
    `${t.kind} ${t.clientTransactionId}: ${t.state}${t.platformStatus ? ` (platform: ${t.platformStatus})` : ''}`,
  ];
  lines.push(`  amount       ${t.amountText}`);
  if (t.method) lines.push(`  method       ${method(t)}`);
  if (t.maskedPan) lines.push(`  card         ${[t.scheme, t.maskedPan, t.entryMode].filter(Boolean).join(' ')}`);
  if (t.serverTransactionId) lines.push(`  platform id  ${t.serverTransactionId}`);
  if (t.relatedClientTransactionId) lines.push(`  acts on      ${t.relatedClientTransactionId}`);
  if (t.merchantId) lines.push(`  merchant     ${t.merchantId}`);
  if (t.reference !== undefined) lines.push(`  reference    ${t.reference}`);
  if (t.capturedAmount > 0) lines.push(`  captured     ${t.capturedAmountText}`);
  if (t.refundedAmount > 0) lines.push(`  refunded     ${t.refundedAmountText}`);
  if (t.cancelledAmount > 0) lines.push(`  cancelled    ${t.cancelledAmountText}`);
  if (t.offline) lines.push('  offline      stored on the terminal, uploaded when the platform is reachable');
  if (t.message) lines.push(`  message      ${t.message}`);
  lines.push(`  created      ${t.createdAt}`);
  return lines.join('\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}
