/**
 * Everything the counter page and the CLI can follow live. Each component adds the
 * events it publishes here; payloads never carry card data, PIN blocks or tokens.
 */
export type DeviceName = 'reader' | 'display' | 'scanner';
/** Why a peripheral's connection state changed (src/devices/port-supervisor.ts). */
export type DeviceStatusReason =
  | 'opened'
  | 'reconnected'
  | 'unplugged'
  | 'port_closed'
  | 'port_missing'
  | 'port_busy'
  | 'permission_denied'
  | 'open_failed'
  | 'handshake_failed'
  | 'no_ack'
  | 'stopped';

export interface AgentEventMap {
  /** A platform transaction event, each once and in order, or a local state change of a journal row. */
  'transaction.updated': {
    clientTransactionId: string;
    serverTransactionId?: string;
    kind: string;
    status: string;
    amount?: number;
    currency?: string;
    method?: string;
    message?: string;
    /** Who made the row: a clerk, `cli`, `local-api`, `agent` or `register:<id>`. */
    operator?: string;
    /** The platform event that caused this update, when there is one. */
    platformEvent?: Record<string, unknown>;
  };
  'reader.progress': { clientTransactionId?: string; step: string; entryMode?: string; text?: string };
  'display.qr': { clientTransactionId?: string; codeValue: string; caption: string; expireTime?: string; svg?: string };
  'scanner.line': { length: number };
  'device.status': {
    device: DeviceName;
    state: 'connected' | 'disconnected' | 'reconnecting';
    reason?: DeviceStatusReason;
    /** What a person can do about it (e.g. join the dialout group); never card data. */
    message?: string;
    model?: string;
    firmware?: string;
  };
  'platform.status': { online: boolean; reason?: string };
  'offline.levels': Record<string, unknown>;
  'offline.warning': { message: string; clientTransactionId?: string };
  /** An offline queue item changed state (stored, uploaded, declined after upload, needs attention). */
  'offline.item': {
    clientTransactionId: string;
    state: string;
    amount: number;
    currency: string;
    serverTransactionId?: string;
    message?: string;
  };
  'auth.status': { state: string; merchantId?: string; clientId?: string; expiresAt?: string; reason?: string };
  'certificate.status': { state: string; notAfter?: string; daysLeft?: number; reason?: string };
  'agent.status': { state: 'starting' | 'ready' | 'stopping'; message?: string };
}

export type AgentEventType = keyof AgentEventMap;

export interface AgentEvent<K extends AgentEventType = AgentEventType> {
  /** Monotonically increasing within one agent run; SSE uses it as the event id. */
  seq: number;
  type: K;
  /** ISO 8601 time of publication. */
  at: string;
  data: AgentEventMap[K];
}
