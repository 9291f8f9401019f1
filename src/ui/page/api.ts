import { ApiError } from './api-error.js';
import { t } from './i18n.js';

export { ApiError };
import { sessionEnded } from './session.js';
import type {
  AgentStatus,
  AllowedOperations,
  AllowedOperationsAnswer,
  DeviceStatus,
  DevicesAnswer,
  ErrorAnswer,
  Merchant,
  MerchantsAnswer,
  OfflineAnswer,
  OfflineFlushAnswer,
  OfflineFlushResult,
  OfflineItem,
  OfflineItemAnswer,
  EndOfDay,
  EndOfDayAnswer,
  PairingOfferAnswer,
  Register,
  RegisterAnswer,
  RegistersAnswer,
  Transaction,
  TransactionAnswer,
  TransactionListAnswer,
} from './types.js';

/**
 * Calls the local API as the signed-in clerk: the browser sends the HttpOnly session cookie
 * (same origin only); the page holds no credential. A 401 means the session ended.
 */
export class Api {
  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: Record<string, unknown>): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: body !== undefined ? { 'content-type': 'application/json' } : {},
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        cache: 'no-store',
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiError('API_UNAVAILABLE', t('api.agentDown'), 0);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new ApiError('INTERNAL', t('api.unexpected', { status: res.status }), res.status);
    }
    if (res.status === 401) sessionEnded();
    if (!res.ok) {
      const error = (json as Partial<ErrorAnswer>).error;
      throw new ApiError(
        error?.code ?? 'INTERNAL',
        error?.message ?? t('api.status', { status: res.status }),
        res.status,
        error?.reasonCode,
        error?.permission,
      );
    }
    return json as T;
  }

  async startSale(body: Record<string, unknown>): Promise<Transaction> {
    return (await this.call<TransactionAnswer>('POST', '/api/v1/sales', body)).transaction;
  }
  async abortSale(id: string): Promise<Transaction> {
    return (await this.call<TransactionAnswer>('POST', `/api/v1/sales/${encodeURIComponent(id)}/abort`, {}))
      .transaction;
  }
  async transaction(id: string): Promise<Transaction> {
    return (await this.call<TransactionAnswer>('GET', `/api/v1/transactions/${encodeURIComponent(id)}`)).transaction;
  }
  async transactions(date: string): Promise<Transaction[]> {
    return (await this.call<TransactionListAnswer>('GET', `/api/v1/transactions?date=${date}&limit=200`)).transactions;
  }
  async allowedOperations(id: string): Promise<AllowedOperations> {
    return (
      await this.call<AllowedOperationsAnswer>(
        'GET',
        `/api/v1/transactions/${encodeURIComponent(id)}/allowed-operations`,
      )
    ).allowedOperations;
  }
  async operate(op: 'cancel' | 'refund' | 'capture', id: string, body: Record<string, unknown>): Promise<Transaction> {
    return (await this.call<TransactionAnswer>('POST', `/api/v1/transactions/${encodeURIComponent(id)}/${op}`, body))
      .transaction;
  }
  /** Cancel or refund by web: the platform picks which; answers the operation's row. */
  async refundByWeb(id: string, body: { amount?: string; merchantId?: string }): Promise<Transaction> {
    return (
      await this.call<TransactionAnswer>('POST', `/api/v1/transactions/${encodeURIComponent(id)}/refund-by-web`, body)
    ).transaction;
  }
  async status(): Promise<AgentStatus> {
    return this.call<AgentStatus>('GET', '/api/v1/status');
  }
  async devices(): Promise<DeviceStatus[]> {
    return (await this.call<DevicesAnswer>('GET', '/api/v1/devices')).devices;
  }
  /**
   * Levels and one page of the sales not yet settled (queued, needing attention, declined
   * after upload), oldest first; `after` is the answer's `next` of the page before.
   */
  async offline(after?: string): Promise<OfflineAnswer> {
    return this.call<OfflineAnswer>(
      'GET',
      `/api/v1/offline${after !== undefined ? `?after=${encodeURIComponent(after)}` : ''}`,
    );
  }
  async flushOffline(): Promise<OfflineFlushResult> {
    return (await this.call<OfflineFlushAnswer>('POST', '/api/v1/offline/flush', {})).result;
  }
  async requeueOffline(id: string): Promise<OfflineItem> {
    return (await this.call<OfflineItemAnswer>('POST', `/api/v1/offline/${encodeURIComponent(id)}/requeue`, {})).item;
  }
  async merchants(): Promise<Merchant[]> {
    return (await this.call<MerchantsAnswer>('GET', '/api/v1/merchants')).merchants;
  }
  /** A final transaction's receipt as printer text (docs/receipts.md, "Layout"); 409 for one not final yet. */
  async receiptText(id: string, copy: 'customer' | 'merchant', width: 32 | 48): Promise<string> {
    let res: Response;
    try {
      res = await fetch(
        `/api/v1/transactions/${encodeURIComponent(id)}/receipt?copy=${copy}&format=text&width=${width}`,
        { cache: 'no-store', credentials: 'same-origin' },
      );
    } catch {
      throw new ApiError('API_UNAVAILABLE', t('api.agentDown'), 0);
    }
    if (res.status === 401) sessionEnded();
    const text = await res.text();
    if (!res.ok) {
      let error: Partial<ErrorAnswer>['error'];
      try {
        error = (JSON.parse(text) as Partial<ErrorAnswer>).error;
      } catch {
        error = undefined;
      }
      throw new ApiError(
        error?.code ?? 'INTERNAL',
        error?.message ?? t('api.status', { status: res.status }),
        res.status,
      );
    }
    return text;
  }
  /** The day's totals in the reader's zone (docs/receipts.md, "End of day"); no date: today there. */
  async endOfDay(date?: string): Promise<EndOfDay> {
    const query = date === undefined ? '' : `?date=${encodeURIComponent(date)}`;
    return (await this.call<EndOfDayAnswer>('GET', `/api/v1/reports/end-of-day${query}`)).endOfDay;
  }
  /** The store-network listener and the paired registers (docs/registers.md). */
  async registers(): Promise<RegistersAnswer> {
    return this.call<RegistersAnswer>('GET', '/api/v1/registers');
  }
  async startPairing(): Promise<PairingOfferAnswer['pairing']> {
    return (await this.call<PairingOfferAnswer>('POST', '/api/v1/registers/pairing', {})).pairing;
  }
  async revokeRegister(id: string): Promise<Register> {
    return (await this.call<RegisterAnswer>('DELETE', `/api/v1/registers/${encodeURIComponent(id)}`)).register;
  }
  /** The QR of a sale as an object URL of the SVG (drawn by the agent with qrcode). */
  async qrUrl(id: string): Promise<string> {
    const res = await fetch(`/api/v1/qr/${encodeURIComponent(id)}.svg`, {
      cache: 'no-store',
      credentials: 'same-origin',
    });
    if (res.status === 401) sessionEnded();
    if (!res.ok) throw new ApiError('API_NOT_FOUND', t('api.noQr'), res.status);
    return URL.createObjectURL(await res.blob());
  }
}
