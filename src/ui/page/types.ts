/**
 * The local API's answers as the page reads them: the one declaration in src/ui/wire-types.ts
 * under the page's names. Type-only: the browser never loads the wire file.
 */
export type {
  ApiTransaction as Transaction,
  ApiOperation as Operation,
  ApiAllowedOperations as AllowedOperations,
  ApiDeviceStatus as DeviceStatus,
  ApiOfflineLevels as OfflineLevels,
  ApiOfflineItem as OfflineItem,
  ApiOfflineFlushResult as OfflineFlushResult,
  ApiMerchant as Merchant,
  ApiAgentStatus as AgentStatus,
  ApiEvent as BusEvent,
  ApiEventStreamHello as EventStreamHello,
  ApiTransactionAnswer as TransactionAnswer,
  ApiTransactionListAnswer as TransactionListAnswer,
  ApiAllowedOperationsAnswer as AllowedOperationsAnswer,
  ApiDevicesAnswer as DevicesAnswer,
  ApiOfflineAnswer as OfflineAnswer,
  ApiOfflineFlushAnswer as OfflineFlushAnswer,
  ApiOfflineItemAnswer as OfflineItemAnswer,
  ApiMerchantsAnswer as MerchantsAnswer,
  ApiErrorAnswer as ErrorAnswer,
  ApiRegister as Register,
  ApiRegistersAnswer as RegistersAnswer,
  ApiPairingOfferAnswer as PairingOfferAnswer,
  ApiRegisterAnswer as RegisterAnswer,
} from '../wire-types.js';
export type {
  ApiEndOfDay as EndOfDay,
  ApiEndOfDayAnswer as EndOfDayAnswer,
  ApiEndOfDayLine as EndOfDayLine,
} from '../report-wire-types.js';

export const PENDING_STATES = new Set(['created', 'awaiting_customer', 'in_flight', 'pending', 'reversing']);

/**
 * A terminal QR sale the platform has not given its word on (docs/payments.md, "Wallet QR,
 * merchant scan"): in flight, its message the agent's "outcome being checked". It may be
 * aborted (the agent asks the platform to cancel it) and the next sale started.
 */
export function beingChecked(t: { state: string; message?: string | undefined }): boolean {
  return t.state === 'in_flight' && /^outcome being checked\b/.test(t.message ?? '');
}
