import { AgentError, ErrorCodes } from '../../core/index.js';
import type { AgentEvent } from '../../events/index.js';
import type { PaymentsApi, TransactionView } from '../../payments/index.js';

/** The journal operator of a paired register's rows (docs/registers.md, "Registers on the store network"). */
export function registerOperator(registerId: string): string {
  return `register:${registerId}`;
}

/**
 * The payments a paired register may see and act on: sales it started and the operations
 * it made on them. Anything else answers "not found", the same as an id that does not
 * exist, so one register cannot learn of another's sales. Capture-all and refund by web
 * act on sales that are not the register's: they stay on the terminal.
 */
export class RegisterPayments implements PaymentsApi {
  /** Ids of rows this register made, for the event stream's filter. */
  private readonly owned = new Set<string>();
  private readonly operator: string;

  constructor(
    private readonly payments: PaymentsApi,
    registerId: string,
  ) {
    this.operator = registerOperator(registerId);
  }

  /**
   * Whether the register's event stream carries `event`: a row's update names its
   * operator, and the ids it learns that way cover the reader's and display's events of
   * the same sale, which follow the row's first update.
   */
  admits(event: AgentEvent): boolean {
    const data = event.data as { clientTransactionId?: unknown; operator?: unknown };
    if (typeof data.clientTransactionId !== 'string') return false;
    if (event.type === 'transaction.updated' && data.operator === this.operator)
      this.owned.add(data.clientTransactionId);
    return this.owned.has(data.clientTransactionId);
  }

  private mine(view: TransactionView): TransactionView {
    if (view.operator !== this.operator)
      throw new AgentError(
        ErrorCodes.API_NOT_FOUND,
        `no transaction ${view.clientTransactionId} made by this register`,
      );
    this.owned.add(view.clientTransactionId);
    if (view.serverTransactionId !== undefined) this.owned.add(view.serverTransactionId);
    return view;
  }

  private async target(id: string): Promise<TransactionView> {
    let view: TransactionView;
    try {
      // Never a platform lookup for a register: an id outside the journal is not its own.
      view = await this.payments.get(id, { journalOnly: true });
    } catch (err) {
      throw err instanceof AgentError &&
        (err.code === ErrorCodes.API_NOT_FOUND || err.code === ErrorCodes.PAYMENT_NOT_FOUND)
        ? new AgentError(ErrorCodes.API_NOT_FOUND, `no transaction ${id} made by this register`)
        : err;
    }
    if (view.operator !== this.operator)
      throw new AgentError(ErrorCodes.API_NOT_FOUND, `no transaction ${id} made by this register`);
    return view;
  }

  async startSale(...args: Parameters<PaymentsApi['startSale']>): ReturnType<PaymentsApi['startSale']> {
    const started = await this.payments.startSale(...args);
    this.owned.add(started.clientTransactionId);
    return started;
  }

  async abortSale(id: string): Promise<TransactionView> {
    const sale = await this.target(id);
    return this.mine(await this.payments.abortSale(sale.clientTransactionId));
  }

  async cancel(id: string, req?: Parameters<PaymentsApi['cancel']>[1]): Promise<TransactionView> {
    const sale = await this.target(id);
    return this.mine(await this.payments.cancel(sale.clientTransactionId, req));
  }

  async refund(id: string, req?: Parameters<PaymentsApi['refund']>[1]): Promise<TransactionView> {
    const sale = await this.target(id);
    return this.mine(await this.payments.refund(sale.clientTransactionId, req));
  }

  async capture(id: string, req?: Parameters<PaymentsApi['capture']>[1]): Promise<TransactionView> {
    const sale = await this.target(id);
    return this.mine(await this.payments.capture(sale.clientTransactionId, req));
  }

  refundByWeb(): Promise<TransactionView> {
    return Promise.reject(
      new AgentError(
        ErrorCodes.API_FORBIDDEN,
        'refund by web acts on a web shop order, not a register sale: do it on the terminal',
      ),
    );
  }

  captureAll(): Promise<TransactionView[]> {
    return Promise.reject(
      new AgentError(ErrorCodes.API_FORBIDDEN, "capture-all acts on every register's sales: do it on the terminal"),
    );
  }

  async allowedOperations(id: string): ReturnType<PaymentsApi['allowedOperations']> {
    const sale = await this.target(id);
    return this.payments.allowedOperations(sale.clientTransactionId);
  }

  async get(id: string, opts?: { refresh?: boolean }): Promise<TransactionView> {
    const sale = await this.target(id);
    return this.mine(
      opts?.refresh === true ? await this.payments.get(sale.clientTransactionId, { refresh: true }) : sale,
    );
  }

  list(query?: Parameters<PaymentsApi['list']>[0]): TransactionView[] {
    return this.payments.list({ ...query, operator: this.operator });
  }
}
