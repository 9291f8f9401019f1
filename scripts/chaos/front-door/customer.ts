import { isAgentError } from '../../../src/core/index.js';
import { LocalApiClient, readLocalToken, type ApiSaleRequest, type ApiTransaction } from '../../../src/ui/index.js';
import type { OperationTold, Told } from '../online/compare.js';

/** The seed's merchants: m-1001 captures at once, m-1002 authorizes only and wants the supervisor code (config/demo-seed.json). */
export const MERCHANTS = ['m-1001', 'm-1002'] as const;
export const SUPERVISOR_CODE = '4711';

/** States the local API reports as the end for the customer: approved (online or offline), or nothing charged. */
export function toldOf(t: Pick<ApiTransaction, 'state'>): Told | undefined {
  if (t.state === 'approved') return 'approved';
  if (t.state === 'offline_stored') return 'approved_offline';
  if (t.state === 'declined' || t.state === 'failed' || t.state === 'cancelled' || t.state === 'reversed')
    return 'nothing_charged';
  return undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Final states of a refund or refund by web as its client sees them: done, or nothing moved. */
function operationToldOf(t: Pick<ApiTransaction, 'state'>): OperationTold['said'] | undefined {
  if (t.state === 'approved') return 'done';
  if (t.state === 'declined' || t.state === 'failed' || t.state === 'cancelled') return 'not_done';
  return undefined;
}

/**
 * The customer in front of a wallet QR (consumer scan), played on the demo platform's wallet
 * provider: pays while the code is shown, pays just as or after it expires (the platform
 * still takes the payment: the wallet provider reports it late), or never pays.
 */
export interface WalletCustomers {
  /** The customer pays now (id: the sale's client id). Throws when the payment is no longer pending. */
  pay(id: string): void;
  /**
   * The amount (minor units) of a sale whose customer pays in the QR's last second, reported
   * by the wallet after the expiry; undefined when the platform cannot play it. The strict demo
   * platform plays it by amount: ending in 61 a cancel then voids it, in 62 the cancel is
   * refused and the payment kept (src/sim/platform/payments/process-wallet.ts).
   */
  lateAmount?: (amount: number, random: () => number) => number;
}

/** What a consumer-scan customer (or the clerk) does once the QR is shown. */
type QrPlay = 'pays' | 'pays late' | 'never pays' | 'clerk aborts';

/**
 * The staff and customers at the counter: sales and operations through the agent's local
 * API only (HTTP with the per-install token), recording what the client was told as final.
 */
export class Counter {
  /** Sale id -> what the client was told as final. */
  readonly told = new Map<string, Told>();
  /** Sale id -> the state and message the client saw as final (for the report's findings). */
  readonly toldAs = new Map<string, string>();
  /** Sales told approved online (for refunds, cancels, captures). */
  readonly approved: Array<{ id: string; merchantId: string; amount: number; method: string }> = [];
  readonly ops = new Map<string, number>();
  /** Refund (or refund by web) id -> what its client was told as final. */
  readonly opsTold = new Map<string, OperationTold>();
  started = 0;
  private api: LocalApiClient | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly random: () => number,
    private readonly wallets?: WalletCustomers,
  ) {}

  connect(url: string): void {
    this.api = new LocalApiClient(url, readLocalToken(this.dataDir), 15_000);
  }

  disconnect(): void {
    this.api = undefined;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  private count(what: string): void {
    this.ops.set(what, (this.ops.get(what) ?? 0) + 1);
  }

  /** One sale from start to what the customer is told; returns when told, or when the agent went away. */
  async sale(onStarted: (n: number) => void): Promise<void> {
    const api = this.api;
    if (api === undefined) return;
    const method = this.pick(['card', 'card', 'card', 'walletA', 'walletB'] as const);
    const merchantId = this.pick(MERCHANTS);
    let amount = 100 + Math.floor(this.random() * 19_900);
    // The demo platform declines card amounts ending in 51.
    if (method === 'card' && this.random() < 0.12) amount = Math.floor(amount / 100) * 100 + 51;
    else if (amount % 100 === 51) amount++;
    // Half of the wallet sales show a QR to the customer (consumer scan), when a customer can be played.
    const consumerScan = method !== 'card' && this.wallets !== undefined && this.random() < 0.5;
    const play = consumerScan ? this.qrPlay() : undefined;
    if (play === 'pays late' && this.wallets?.lateAmount !== undefined)
      amount = this.wallets.lateAmount(amount, this.random);
    const req: ApiSaleRequest =
      method === 'card'
        ? { method, amount: (amount / 100).toFixed(2), currency: 'EUR', merchantId }
        : consumerScan
          ? { method, scenario: 'ConsumerScan', amount: (amount / 100).toFixed(2), currency: 'EUR', merchantId }
          : {
              method,
              scenario: 'MerchantScan',
              amount: (amount / 100).toFixed(2),
              currency: 'EUR',
              merchantId,
              walletId: `${method === 'walletA' ? 'WA' : 'WB'}-${Math.floor(this.random() * 1e9)}`,
              // A quarter through the terminal QR call instead of process.
              ...(this.random() < 0.25
                ? { via: 'qrTerminal' as const, order: { orderId: `order-${Math.floor(this.random() * 1e9)}` } }
                : {}),
            };
    let t: ApiTransaction;
    for (;;) {
      try {
        t = await api.startSale(req);
        break;
      } catch (err) {
        // Another sale holds the reader: the counter waits its turn. Anything else: the agent went away.
        if (isAgentError(err, 'PAYMENT_BUSY')) await sleep(20);
        else {
          this.count(`sale refused (${isAgentError(err) ? err.code : 'no answer'})`);
          // The journal cannot write (a disk-full moment): the counter tries again shortly.
          if (isAgentError(err, 'JOURNAL_UNWRITABLE')) await sleep(50);
          return;
        }
      }
    }
    this.started++;
    onStarted(this.started);
    this.count(
      `sale ${method}${req.via === 'qrTerminal' ? ' (terminal QR call)' : ''}${play !== undefined ? ` (QR: ${play})` : ''}`,
    );
    let played = false;
    for (;;) {
      const said = toldOf(t);
      if (said !== undefined) {
        this.told.set(t.clientTransactionId, said);
        this.toldAs.set(
          t.clientTransactionId,
          `${t.method ?? ''} ${t.merchantId ?? ''} ${t.state}: ${t.message ?? ''}`,
        );
        if (said === 'approved') this.approved.push({ id: t.clientTransactionId, merchantId, amount, method });
        return;
      }
      if (play !== undefined && !played && t.state === 'awaiting_customer' && t.qr !== undefined) {
        played = true;
        await this.playQr(api, t.clientTransactionId, play);
      }
      await sleep(100);
      try {
        t = await api.transaction(t.clientTransactionId);
      } catch {
        return;
      }
    }
  }

  private qrPlay(): QrPlay {
    const r = this.random();
    if (r < 0.45) return 'pays';
    if (r < 0.6 && this.wallets?.lateAmount !== undefined) return 'pays late';
    if (r < 0.8) return 'clerk aborts';
    return 'never pays';
  }

  /** The customer (or the clerk) acts on the QR shown ("pays late" is played by the platform); what the platform then says is the agent's to follow. */
  private async playQr(api: LocalApiClient, id: string, play: QrPlay): Promise<void> {
    const wallets = this.wallets;
    if (wallets === undefined) return;
    await sleep(Math.floor(this.random() * 1_000));
    try {
      if (play === 'pays') wallets.pay(id);
      else if (play === 'clerk aborts') await api.abortSale(id);
    } catch {
      // Too late (the code expired, the sale moved on) or the agent went away: part of the game.
    }
  }

  /** Follows an operation the agent answered before it was final, and notes what its client saw last. */
  private async tellOperation(api: LocalApiClient, kind: string, saleId: string, first: ApiTransaction): Promise<void> {
    let t = first;
    for (let i = 0; i < 600; i++) {
      const said = operationToldOf(t);
      if (said !== undefined) {
        this.opsTold.set(t.clientTransactionId, {
          kind,
          saleId,
          said,
          amount: t.amount,
          serverTransactionId: t.serverTransactionId,
        });
        return;
      }
      await sleep(100);
      try {
        t = await api.transaction(t.clientTransactionId);
      } catch {
        return;
      }
    }
  }

  /** A refund, cancel or capture of a sale told approved; refusals by the rules are part of the game. */
  async operate(): Promise<void> {
    const api = this.api;
    if (api === undefined || this.approved.length === 0) return;
    const target = this.pick(this.approved);
    const kind = this.pick(['refund', 'refund', 'cancel', 'capture', 'refund-by-web'] as const);
    const code = target.merchantId === 'm-1002' ? { approvalCode: SUPERVISOR_CODE } : {};
    const partial = (Math.max(1, Math.floor(target.amount * (0.1 + this.random() * 0.3))) / 100).toFixed(2);
    try {
      let t: ApiTransaction;
      if (kind === 'refund') t = await api.operate('refund', target.id, { amount: partial, ...code });
      // By web carries no approval code: the terminal's own permission stands in for it.
      else if (kind === 'refund-by-web') t = await api.operate('refund-by-web', target.id, { amount: partial });
      else if (kind === 'cancel')
        t = await api.operate('cancel', target.id, {
          ...(this.random() < 0.5 && target.merchantId === 'm-1001' ? { amount: partial } : {}),
          ...code,
        });
      else t = await api.operate('capture', target.id, {});
      // Answered while the journal could not write: told the outcome is being recorded.
      this.count(
        `${kind} answered${t.state === 'in_flight' && (t.message ?? '').startsWith('outcome being recorded') ? ' (outcome being recorded)' : ''}`,
      );
      if (kind === 'refund' || kind === 'refund-by-web') await this.tellOperation(api, kind, target.id, t);
    } catch (err) {
      this.count(`${kind} refused (${isAgentError(err) ? err.code : 'no answer'})`);
    }
  }

  async flushOffline(): Promise<void> {
    try {
      await this.api?.call('POST', '/api/v1/offline/flush', {});
    } catch {
      // The uploader tries on its own too.
    }
  }
}
