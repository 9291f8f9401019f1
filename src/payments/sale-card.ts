import { AgentError, describeError } from '../core/index.js';
import type { CardResult, EntryMode } from '../devices/index.js';
import { isPlatformError } from '../platform/index.js';
import type { ProcessRequest } from '../platform/index.js';
import type { MotoDetails } from './api.js';
import { adoptSaleRecord } from './adopt.js';
import { cardProcessBody, cardSecretOf } from './card-body.js';
import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { formatAmount } from './money.js';
import { captureIfImmediate } from './immediate-capture.js';
import { failureKind, refusalError } from './outcome.js';
import { isUnknownStatus, type PlatformRecord } from './records.js';
import { resolveSale } from './reversal.js';
import { checkMotoEntryMode } from './rules.js';

const PRESENT_MODES: EntryMode[] = ['ContactChip', 'ContactlessChip', 'Magstripe'];

/**
 * A card sale (docs/payments.md, "Card sale"): the row exists before anything happens; the reader
 * reads the card (keyed on its own keypad for manual entry and MOTO, so the agent never
 * sees a clear PAN); the row becomes in_flight with the card data as the reader gave it;
 * then process, and the answer is adopted. Never throws: the outcome is in the journal.
 */
export async function runCardSale(
  ctx: PaymentContext,
  saleId: string,
  moto: MotoDetails | undefined,
  signal: AbortSignal,
  release: () => void = () => {},
): Promise<void> {
  const sale = ctx.journal.require(saleId);
  const keyed = sale.method === 'manual' || sale.method === 'moto';
  const offlineAllowed =
    sale.method === 'card' &&
    ctx.offline !== undefined &&
    ctx.config.offline.enabled &&
    (ctx.offline.allowed === undefined || ctx.offline.allowed(sale).ok);
  let result: CardResult;
  try {
    result = await ctx.devices.reader.readCard({
      amount: sale.amount,
      currency: sale.currency,
      entryModes: keyed ? ['Keyed'] : PRESENT_MODES,
      offlineAllowed,
      clientTransactionId: saleId,
      signal,
      timeoutMs: ctx.config.devices.cardTimeoutMs,
    });
  } catch (err) {
    release();
    finish(ctx, saleId, 'failed', `the card reader failed: ${describeError(err)}; nothing was charged`);
    return;
  }
  release();
  if (result.outcome !== 'ok') {
    const seconds = Math.round(ctx.config.devices.cardTimeoutMs / 1000);
    if (result.outcome === 'cancelled')
      finish(ctx, saleId, 'cancelled', 'cancelled at the reader: nothing was charged');
    else if (result.outcome === 'timeout')
      finish(ctx, saleId, 'failed', `no card was presented within ${seconds} s: nothing was charged`);
    else if (result.outcome === 'declined') finish(ctx, saleId, 'declined', `declined by the card: ${result.reason}`);
    // The agent's own finding (docs/serial-protocol.md, "Decisions", reader liveness), not the reader's report.
    else if (result.fault !== undefined) finish(ctx, saleId, 'failed', `${result.reason}: nothing was charged`);
    else finish(ctx, saleId, 'failed', `the card reader reported an error (${result.reason}): nothing was charged`);
    await showOutcome(ctx, saleId);
    return;
  }
  if (keyed || sale.method === 'moto') {
    try {
      checkMotoEntryMode(result.entryMode);
    } catch (err) {
      finish(ctx, saleId, 'failed', `${describeError(err)}: nothing was charged`);
      return;
    }
  }
  const body = cardProcessBody(
    sale,
    ctx.channel,
    result.entryMode,
    result.card,
    result.pin,
    sale.method === 'moto' ? moto : undefined,
  );
  // Write-ahead: the row is in_flight (with the card data, as the reader gave it) before the request leaves.
  const inFlight = ctx.save(saleId, {
    state: 'in_flight',
    entryMode: result.entryMode,
    maskedPan: result.card.maskedPan,
    scheme: result.card.scheme,
    cardSecret: cardSecretOf(result.card, result.pin),
    attempts: sale.attempts + 1,
    message: 'sent to the platform',
  });
  let record: PlatformRecord;
  try {
    record = await ctx.platform.process(body, ctx.callOptions(inFlight));
  } catch (err) {
    await processFailed(ctx, inFlight, err, result, body);
    await showOutcome(ctx, saleId);
    return;
  }
  const adopted = adoptSaleRecord(ctx, inFlight, record);
  await captureIfImmediate(ctx, adopted.row);
  await showOutcome(ctx, saleId);
}

async function processFailed(
  ctx: PaymentContext,
  sale: JournalRow,
  err: unknown,
  card: Extract<CardResult, { outcome: 'ok' }>,
  body: ProcessRequest,
): Promise<void> {
  const kind = failureKind(err);
  if (kind === 'refused') {
    finish(
      ctx,
      sale.clientTransactionId,
      'failed',
      `${refusalError(err, 'sale', sale.clientTransactionId).message}; nothing was charged`,
    );
    return;
  }
  if (kind === 'unknown') {
    ctx.log.warn(
      { clientTransactionId: sale.clientTransactionId, code: isPlatformError(err) ? err.code : undefined },
      'sale outcome unknown; looking it up',
    );
    const resolved = await resolveSale(ctx, ctx.journal.require(sale.clientTransactionId));
    await captureIfImmediate(ctx, resolved);
    return;
  }
  // Never reached the platform: an offline sale when the reader approved it offline and the policy allows it.
  const reason = isPlatformError(err) ? err.message : describeError(err);
  if (ctx.offline === undefined || !ctx.config.offline.enabled || sale.method !== 'card') {
    finish(
      ctx,
      sale.clientTransactionId,
      'failed',
      `the platform cannot be reached (${reason}) and offline sales are not available: nothing was charged`,
    );
    return;
  }
  if (card.offlineApproved !== true) {
    finish(
      ctx,
      sale.clientTransactionId,
      'failed',
      `the platform cannot be reached (${reason}) and the card did not approve offline: nothing was charged`,
    );
    return;
  }
  const decision = ctx.offline.eligible({
    sale,
    entryMode: card.entryMode,
    maskedPan: card.card.maskedPan,
    scheme: card.card.scheme,
    offlineApproved: true,
  });
  if (!decision.ok) {
    finish(
      ctx,
      sale.clientTransactionId,
      'failed',
      `the platform cannot be reached and the sale cannot be taken offline: ${decision.reason}; nothing was charged`,
    );
    return;
  }
  const hook = ctx.offline;
  try {
    // Invariant 1: the journal update and the enqueue are one SQLite transaction.
    ctx.rows.write(() => {
      const row = ctx.save(sale.clientTransactionId, {
        state: 'offline_stored',
        offline: true,
        message: `approved offline: ${formatAmount(sale.amount, sale.currency)}, stored until the platform is reachable`,
      });
      hook.store({ row, body, card: card.card, ...(card.pin !== undefined ? { pin: card.pin } : {}) });
    });
  } catch (storeErr) {
    const why = storeErr instanceof AgentError ? storeErr.message : describeError(storeErr);
    finish(
      ctx,
      sale.clientTransactionId,
      'failed',
      `the platform cannot be reached and the offline store refused the sale (${why}): nothing was charged`,
    );
  }
}

function finish(ctx: PaymentContext, id: string, state: 'failed' | 'declined' | 'cancelled', message: string): void {
  ctx.save(id, { state, message });
}

/** The outcome on the reader and the customer display, in words; never fails the sale. */
export async function showOutcome(ctx: PaymentContext, id: string): Promise<void> {
  const row = ctx.journal.require(id);
  const amount = formatAmount(row.amount, row.currency);
  const approved = row.state === 'approved' || row.state === 'offline_stored';
  // A status the agent does not know is no decline: the customer waits while staff check it.
  const unknown = row.state === 'needs_attention' && isUnknownStatus(row.platformStatus);
  const text = approved
    ? 'Approved'
    : row.state === 'declined'
      ? 'Declined'
      : row.state === 'cancelled'
        ? 'Cancelled'
        : unknown
          ? 'See staff'
          : 'Not approved';
  const isCard = row.method === 'card' || row.method === 'manual' || row.method === 'moto';
  if (isCard && row.state !== 'in_flight')
    await ctx.bestEffort('reader', () => ctx.devices.reader.showResult(approved, text));
  await ctx.bestEffort('display', () => ctx.devices.display.showText([amount, text]));
}
