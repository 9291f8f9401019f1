import { describeError, ErrorCodes, isAgentError } from '../core/index.js';
import { isPlatformError } from '../platform/index.js';
import { adoptSaleRecord } from './adopt.js';
import type { SaleOrder, SaleVia } from './api.js';
import type { PaymentContext } from './payment-context.js';
import type { JournalRow } from './journal/index.js';
import { formatAmount } from './money.js';
import { failureKind, refusalError } from './outcome.js';
import { classifyStatus, recordServerId, recordStatus, type PlatformRecord } from './records.js';
import { resolveSale } from './reversal.js';
import { keepChecking, QR_CHECKING_MESSAGE } from './qr-call.js';
import { showOutcome } from './sale-card.js';

export interface WalletSaleInput {
  /** Merchant scan: the customer's code when already known (otherwise the scanner is awaited). */
  walletId?: string | undefined;
  /** Merchant scan only: `qrTerminal` sends the terminal QR call instead of process. */
  via?: SaleVia | undefined;
  /** The terminal QR call's order (default order id: the client transaction id). */
  order?: SaleOrder | undefined;
}

/**
 * A wallet sale (docs/payments.md, "Wallet QR, consumer scan" and "Wallet QR,
 * merchant scan"): consumer scan answers Initialized with the QR,
 * shown on the customer display and followed by the relay until final; merchant scan
 * reads the customer's code from the scanner (unless given) and sends it as walletId
 * (process) or as scannedPaymentId (the terminal QR call). Never throws: the outcome is
 * in the journal.
 */
export async function runWalletSale(
  ctx: PaymentContext,
  saleId: string,
  input: WalletSaleInput,
  signal: AbortSignal,
  release: () => void = () => {},
): Promise<void> {
  const sale = ctx.journal.require(saleId);
  const wallet = sale.method as 'walletA' | 'walletB';
  const scenario = sale.scenario ?? 'ConsumerScan';
  const terminalQr = input.via === 'qrTerminal' && scenario === 'MerchantScan';
  let code = input.walletId;
  if (scenario === 'MerchantScan' && code === undefined) {
    await ctx.bestEffort('display', () =>
      ctx.devices.display.showText([formatAmount(sale.amount, sale.currency), 'Show your wallet code']),
    );
    try {
      code = await ctx.devices.scanner.nextScan({
        timeoutMs: ctx.config.devices.scanTimeoutMs,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      release();
      if (signal.aborted)
        ctx.save(saleId, {
          state: 'cancelled',
          message: 'cancelled before the customer code was scanned: nothing was charged',
        });
      else if (isAgentError(err, ErrorCodes.DEVICE_TIMEOUT)) {
        ctx.save(saleId, {
          state: 'failed',
          message: `no customer code was scanned within ${Math.round(ctx.config.devices.scanTimeoutMs / 1000)} s: nothing was charged`,
        });
      } else
        ctx.save(saleId, {
          state: 'failed',
          message: `the scanner failed (${describeError(err)}): nothing was charged`,
        });
      await showOutcome(ctx, saleId);
      return;
    }
    release();
    code = code.trim();
    if (code === '') {
      ctx.save(saleId, { state: 'failed', message: 'the scanned customer code is empty: nothing was charged' });
      return;
    }
  }
  // Write-ahead: the row is in_flight before the request leaves (either call).
  const inFlight = ctx.save(saleId, {
    state: 'in_flight',
    attempts: sale.attempts + 1,
    message: terminalQr ? 'sent to the platform (terminal QR call)' : 'sent to the platform',
  });
  let record: PlatformRecord;
  try {
    if (terminalQr && code !== undefined) {
      const order = input.order;
      record = await ctx.platform.qrTerminalPayment(
        {
          paymentType: wallet,
          paymentScenario: 'MerchantScan',
          scannedPaymentId: code,
          // The journal's id. The payment API is not promised to know it (a field of the QR
          // service's body): an unknown outcome is looked up by the server id an answer gave (qr-call.ts).
          clientTransactionId: saleId,
          paymentAmount: { amount: sale.amount, currency: sale.currency },
          order: { orderId: order?.orderId ?? saleId, orderDescription: order?.orderDescription ?? '' },
        },
        ctx.callOptions(inFlight),
      );
    } else {
      record = await ctx.platform.process(
        {
          clientDateTime: inFlight.clientDateTime,
          channel: ctx.channel,
          clientNewTransactionId: saleId,
          authorizationAmount: { amount: sale.amount, currency: sale.currency },
          instrument: {
            instrumentType: wallet,
            paymentScenario: scenario,
            ...(code !== undefined ? { walletId: code } : {}),
          },
        },
        ctx.callOptions(inFlight),
      );
    }
  } catch (err) {
    const kind = failureKind(err);
    if (kind === 'unknown') {
      ctx.log.warn(
        { clientTransactionId: saleId, code: isPlatformError(err) ? err.code : undefined },
        'wallet sale outcome unknown; looking it up',
      );
      const resolved = await resolveSale(ctx, ctx.journal.require(saleId));
      afterAdopt(ctx, resolved, true);
    } else if (kind === 'refused') {
      ctx.save(saleId, {
        state: 'failed',
        message: `${refusalError(err, 'sale', saleId).message}; nothing was charged`,
      });
    } else {
      ctx.save(saleId, {
        state: 'failed',
        message: `the platform cannot be reached (${describeError(err)}): nothing was charged`,
      });
    }
    await showWalletOutcome(ctx, saleId);
    return;
  }
  if (terminalQr && !qrAnswerSettles(record)) {
    // The terminal QR call's answer is not specified (docs/platform-contract.md, "Decisions
    // where the spec is silent", terminal QR call answer). One without a transaction status
    // says nothing about the money, and a pending one without a server id leaves nothing to
    // follow it by: the sale is looked up by the server id it gave (else its client id), and
    // stays being checked while the payment API does not know it (qr-call.ts).
    const serverId = recordServerId(record);
    ctx.log.warn(
      { clientTransactionId: saleId, serverTransactionId: serverId },
      'terminal QR call answered without a status, or pending without a server id; looking it up',
    );
    const current =
      serverId !== undefined
        ? ctx.save(saleId, { serverTransactionId: serverId }, { quiet: true })
        : ctx.journal.require(saleId);
    const resolved =
      recordStatus(record) === undefined || serverId !== undefined
        ? await resolveSale(ctx, current)
        : keepChecking(ctx, saleId);
    afterAdopt(ctx, resolved, true);
    await showWalletOutcome(ctx, saleId);
    return;
  }
  const adopted = adoptSaleRecord(ctx, inFlight, record);
  afterAdopt(ctx, adopted.row, adopted.startedWaiting);
  await showWalletOutcome(ctx, saleId);
}

/**
 * The terminal QR call's answer settles the sale by itself when it carries a status the
 * agent reads and, if that status is pending, the server id the sale is followed by.
 */
function qrAnswerSettles(record: PlatformRecord): boolean {
  const status = recordStatus(record);
  if (status === undefined) return false;
  return classifyStatus(status) !== 'pending' || recordServerId(record) !== undefined;
}

/** The customer display after the platform call: the outcome, or "being checked" while the platform has not given its word. */
async function showWalletOutcome(ctx: PaymentContext, saleId: string): Promise<void> {
  const row = ctx.journal.require(saleId);
  if (row.state === 'awaiting_customer') return;
  if (row.state === 'in_flight' && row.message === QR_CHECKING_MESSAGE) {
    await ctx.bestEffort('display', () =>
      ctx.devices.display.showText([formatAmount(row.amount, row.currency), 'Being checked: please wait']),
    );
    return;
  }
  await showOutcome(ctx, saleId);
}

/** A pending wallet payment: show the QR (consumer scan) and have the relay follow it. */
function afterAdopt(ctx: PaymentContext, row: JournalRow, startedWaiting: boolean): void {
  if (row.state !== 'awaiting_customer' || !startedWaiting) return;
  if (row.scenario === 'ConsumerScan') {
    if (row.qrCode === undefined) {
      ctx.save(row.clientTransactionId, {
        state: 'needs_attention',
        message: 'the platform answered without a QR code: cancel the sale and try again',
      });
      return;
    }
    const qr = row.qrCode;
    const caption = `${formatAmount(row.amount, row.currency)} - scan with ${row.method ?? 'your wallet'}`;
    const opts = {
      clientTransactionId: row.clientTransactionId,
      ...(row.qrExpireTime !== undefined ? { expireTime: row.qrExpireTime } : {}),
    };
    // The display driver puts display.qr on the bus for the counter page, then draws the code.
    ctx.background('show QR', () => ctx.bestEffort('display', () => ctx.devices.display.showQr(qr, caption, opts)));
  }
  ctx.notifyTracking(row);
}

/** The relay's final answer reached the row: the outcome on the display. */
export function walletSettled(ctx: PaymentContext, row: JournalRow): void {
  ctx.background('show outcome', () => showOutcome(ctx, row.clientTransactionId));
}
