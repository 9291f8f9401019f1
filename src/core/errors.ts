/**
 * Every error the agent raises on purpose is an AgentError with a stable `code`
 * (docs/architecture.md, "Errors"). The CLI and the counter page show `message`; logs
 * carry `code`; the local API maps each code to an HTTP status in exactly one table
 * (src/ui/shared/error-status.ts), so domain code never speaks HTTP. Messages must never
 * contain card data, PIN blocks, secrets or tokens.
 */
export const ErrorCodes = {
  // configuration and start-up
  CONFIG_INVALID: 'CONFIG_INVALID',
  CONFIG_FILE_MISSING: 'CONFIG_FILE_MISSING',
  /** A configuration file holding a secret is readable by group or others. */
  CONFIG_PERMISSIONS: 'CONFIG_PERMISSIONS',
  // device identity
  CERT_UNREADABLE: 'CERT_UNREADABLE',
  CERT_KEY_MISMATCH: 'CERT_KEY_MISMATCH',
  CERT_EXPIRED: 'CERT_EXPIRED',
  CERT_NOT_YET_VALID: 'CERT_NOT_YET_VALID',
  CERT_NO_SERIAL: 'CERT_NO_SERIAL',
  KEY_PERMISSIONS: 'KEY_PERMISSIONS',
  // auth
  AUTH_UNKNOWN_TERMINAL: 'AUTH_UNKNOWN_TERMINAL',
  AUTH_NO_MERCHANT: 'AUTH_NO_MERCHANT',
  AUTH_INVALID_GRANT: 'AUTH_INVALID_GRANT',
  AUTH_INVALID_CLIENT: 'AUTH_INVALID_CLIENT',
  AUTH_TOKEN_INVALID: 'AUTH_TOKEN_INVALID',
  AUTH_BINDING_MISMATCH: 'AUTH_BINDING_MISMATCH',
  AUTH_CERT_REFUSED: 'AUTH_CERT_REFUSED',
  AUTH_STOPPED: 'AUTH_STOPPED',
  /** custom_token mode: no device token until the merchant signs in on the counter page. */
  AUTH_SIGN_IN_REQUIRED: 'AUTH_SIGN_IN_REQUIRED',
  // platform client
  PLATFORM_NETWORK: 'PLATFORM_NETWORK',
  PLATFORM_TIMEOUT: 'PLATFORM_TIMEOUT',
  PLATFORM_AUTH: 'PLATFORM_AUTH',
  PLATFORM_REJECTED: 'PLATFORM_REJECTED',
  PLATFORM_SERVER: 'PLATFORM_SERVER',
  PLATFORM_BAD_RESPONSE: 'PLATFORM_BAD_RESPONSE',
  PLATFORM_BAD_REQUEST: 'PLATFORM_BAD_REQUEST',
  // payments
  AMOUNT_INVALID: 'AMOUNT_INVALID',
  CURRENCY_UNKNOWN: 'CURRENCY_UNKNOWN',
  PAYMENT_RULE: 'PAYMENT_RULE',
  PAYMENT_NOT_FOUND: 'PAYMENT_NOT_FOUND',
  PAYMENT_DECLINED: 'PAYMENT_DECLINED',
  PAYMENT_BUSY: 'PAYMENT_BUSY',
  /** A client transaction id already used by another operation or row. */
  PAYMENT_ID_CONFLICT: 'PAYMENT_ID_CONFLICT',
  /** The operation does not fit the row's current state (abort a refund, requeue an uploaded sale). */
  PAYMENT_STATE: 'PAYMENT_STATE',
  /** The platform could not be reached before the write left: nothing happened, try again. */
  PAYMENT_NOT_SENT: 'PAYMENT_NOT_SENT',
  /** The platform never answered and has no record: nothing happened, try again. */
  PAYMENT_NOT_DONE: 'PAYMENT_NOT_DONE',
  /** Input from a caller that the domain refuses (a date, a queue state, a display text). */
  INPUT_INVALID: 'INPUT_INVALID',
  // offline
  OFFLINE_LIMIT: 'OFFLINE_LIMIT',
  OFFLINE_NOT_ELIGIBLE: 'OFFLINE_NOT_ELIGIBLE',
  OFFLINE_NOT_FOUND: 'OFFLINE_NOT_FOUND',
  /** An offline upload body that does not match its journal row: a defect, never stored. */
  OFFLINE_BODY_MISMATCH: 'OFFLINE_BODY_MISMATCH',
  /** A read-only command found no journal in the data directory. */
  JOURNAL_MISSING: 'JOURNAL_MISSING',
  /** The journal file is damaged or was emptied: the agent refuses to start on it and keeps it. */
  JOURNAL_DAMAGED: 'JOURNAL_DAMAGED',
  /** The journal cannot take writes (disk full, I/O error): no new payment starts until it can. */
  JOURNAL_UNWRITABLE: 'JOURNAL_UNWRITABLE',
  /** Free space in the data directory is below payments.minFreeDiskMb: no new payment starts. */
  DISK_SPACE_LOW: 'DISK_SPACE_LOW',
  // devices and link layer
  DEVICE_TIMEOUT: 'DEVICE_TIMEOUT',
  DEVICE_DISCONNECTED: 'DEVICE_DISCONNECTED',
  DEVICE_PORT_BUSY: 'DEVICE_PORT_BUSY',
  DEVICE_PORT_PERMISSION: 'DEVICE_PORT_PERMISSION',
  DEVICE_PORT_MISSING: 'DEVICE_PORT_MISSING',
  DEVICE_ERROR: 'DEVICE_ERROR',
  /** The device is serving another sale (a scan already awaited). */
  DEVICE_BUSY: 'DEVICE_BUSY',
  LINK_CRC: 'LINK_CRC',
  LINK_NO_ACK: 'LINK_NO_ACK',
  LINK_OVERSIZE: 'LINK_OVERSIZE',
  // local API
  API_BAD_REQUEST: 'API_BAD_REQUEST',
  /** A request body larger than the local API reads. */
  API_BODY_TOO_LARGE: 'API_BODY_TOO_LARGE',
  /** A request body not declared as JSON (Content-Type). */
  API_UNSUPPORTED_MEDIA_TYPE: 'API_UNSUPPORTED_MEDIA_TYPE',
  API_UNAUTHORIZED: 'API_UNAUTHORIZED',
  API_FORBIDDEN_ORIGIN: 'API_FORBIDDEN_ORIGIN',
  /** The signed-in clerk lacks the permission an operation needs (docs/counter-page.md, "Local API and counter page"). */
  API_FORBIDDEN: 'API_FORBIDDEN',
  /** Staff sign-in refused: wrong username or password, or no way to check it. */
  API_SIGN_IN_FAILED: 'API_SIGN_IN_FAILED',
  /** Too many failed sign-ins for this username or client address: try again after the wait the message names. */
  API_SIGN_IN_THROTTLED: 'API_SIGN_IN_THROTTLED',
  API_NOT_FOUND: 'API_NOT_FOUND',
  API_METHOD_NOT_ALLOWED: 'API_METHOD_NOT_ALLOWED',
  /**
   * An Idempotency-Key used again with another request, or whose first request's outcome is
   * unknown (docs/local-api.md, "Idempotency").
   */
  API_IDEMPOTENCY_CONFLICT: 'API_IDEMPOTENCY_CONFLICT',
  /** The CLI found no agent answering on the local API. */
  API_UNAVAILABLE: 'API_UNAVAILABLE',
  /** A register's pairing code is wrong, used or expired (docs/registers.md, "Pairing"). */
  LAN_PAIRING_REFUSED: 'LAN_PAIRING_REFUSED',
  /** Too many wrong pairing codes from one address, or for the code on offer. */
  LAN_PAIRING_THROTTLED: 'LAN_PAIRING_THROTTLED',
  /** Pairing asked for while the store-network listener is off (api.lan.enabled). */
  LAN_DISABLED: 'LAN_DISABLED',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface AgentErrorOptions {
  cause?: unknown;
  /** Extra structured, non-secret facts (e.g. which config key, which limit). */
  details?: Record<string, unknown>;
}

export class AgentError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AgentErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentError';
    this.code = code;
    this.details = options.details;
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isAgentError(err: unknown, code?: ErrorCode): err is AgentError {
  return err instanceof AgentError && (code === undefined || err.code === code);
}

/** A one-line description of any thrown value, safe to show (no stack). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
