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
export type { ApiEndOfDay as EndOfDay, ApiEndOfDayAnswer as EndOfDayAnswer, ApiEndOfDayLine as EndOfDayLine } from '../report-wire-types.js';

export const PENDING_STATES = new Set(['created', 'awaiting_customer', 'in_flight', 'pending', 'reversing']);
