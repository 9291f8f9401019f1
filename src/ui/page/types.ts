/** The local API's answers as the page reads them (see src/ui/api-views.ts). */

export interface Transaction {
  clientTransactionId: string;
  serverTransactionId?: string;
  kind: 'sale' | 'capture' | 'cancel' | 'refund';
  method?: string;
  scenario?: string;
  amount: number;
  currency: string;
  amountText: string;
  state: string;
  platformStatus?: string;
  relatedClientTransactionId?: string;
  maskedPan?: string;
  scheme?: string;
  entryMode?: string;
  offline: boolean;
  merchantId?: string;
  message?: string;
  qr?: { codeValue: string; expireTime?: string };
  capturedAmount: number;
  refundedAmount: number;
  cancelledAmount: number;
  capturedAmountText: string;
  refundedAmountText: string;
  cancelledAmountText: string;
  createdAt: string;
}

export interface Operation {
  allowed: boolean;
  maxAmount: number;
  maxAmountText: string;
  reason?: string;
}

export interface AllowedOperations {
  cancel: Operation;
  refund: Operation;
  capture: Operation;
  currency: string;
  fromPlatform: boolean;
}

export interface DeviceStatus {
  device: 'reader' | 'display' | 'scanner';
  state: string;
  reason?: string;
  model?: string;
}

export interface OfflineLevels {
  enabled: boolean;
  count: number;
  maxCount: number;
  totals: Record<string, number>;
  maxTotal: Record<string, number>;
  totalsText: Record<string, string>;
  maxTotalText: Record<string, string>;
  floorLimitsText: Record<string, string>;
  floorLimits?: Record<string, number>;
  needsAttention?: number;
  lastError?: string;
}

/** One offline sale (GET /api/offline items): no card data, the masked PAN at most. */
export interface OfflineItem {
  clientTransactionId: string;
  amount: number;
  currency: string;
  amountText: string;
  maskedPan?: string;
  state: 'queued' | 'uploading' | 'uploaded' | 'declined_after_upload' | 'needs_attention';
  attempts: number;
  lastMessage?: string;
  storedAt: string;
  serverTransactionId?: string;
}

export interface OfflineFlushResult {
  platform?: 'online' | 'offline';
  uploaded: number;
  declinedAfterUpload?: number;
  needsAttention?: number;
  failed: number;
  remaining: number;
}

export interface Merchant {
  merchantName: string;
  clientId: string;
  merchantId?: string;
  default: boolean;
}

export interface AgentStatus {
  agent: { defaultCurrency: string; environment: string; merchantId: string | null };
  ready: boolean;
  checks: Record<string, { ok: boolean; detail: string }>;
  platform: { online: boolean };
  devices: DeviceStatus[];
  offline: OfflineLevels | null;
}

export interface BusEvent {
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

export const PENDING_STATES = new Set(['created', 'awaiting_customer', 'in_flight', 'reversing']);
