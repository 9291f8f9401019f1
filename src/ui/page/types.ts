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
