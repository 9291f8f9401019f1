import type { ErrorCode } from '../../core/index.js';

/**
 * The HTTP status of every error code, in one place (docs/architecture.md, "Errors"): the
 * local API answers an AgentError with the status its code has here, so domain code never
 * speaks HTTP. A Record over every code: a new code without a status does not compile.
 * Codes that never reach the local API (configuration, certificates, the link layer, the
 * CLI's own) are 500: if one ever does, it is the agent's fault, not the caller's.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  // configuration and start-up
  CONFIG_INVALID: 500,
  CONFIG_FILE_MISSING: 500,
  CONFIG_PERMISSIONS: 500,
  // device identity
  CERT_UNREADABLE: 500,
  CERT_KEY_MISMATCH: 500,
  CERT_EXPIRED: 500,
  CERT_NOT_YET_VALID: 500,
  CERT_NO_SERIAL: 500,
  KEY_PERMISSIONS: 500,
  // auth: the platform's token endpoints refused the terminal or sent a token we cannot use (bad gateway)
  AUTH_UNKNOWN_TERMINAL: 502,
  /** The sale names a merchant this terminal (or its logged-in user) does not act for. */
  AUTH_NO_MERCHANT: 400,
  AUTH_INVALID_GRANT: 502,
  AUTH_INVALID_CLIENT: 502,
  AUTH_TOKEN_INVALID: 502,
  AUTH_BINDING_MISMATCH: 502,
  AUTH_CERT_REFUSED: 502,
  AUTH_STOPPED: 503,
  /** Nothing can reach the platform until the merchant signs in (custom_token mode). */
  AUTH_SIGN_IN_REQUIRED: 503,
  // platform client: the platform's fault (bad gateway), a timeout, or our own request refused before it left
  PLATFORM_NETWORK: 502,
  PLATFORM_TIMEOUT: 504,
  PLATFORM_AUTH: 502,
  PLATFORM_REJECTED: 502,
  PLATFORM_SERVER: 502,
  PLATFORM_BAD_RESPONSE: 502,
  PLATFORM_BAD_REQUEST: 400,
  // payments
  AMOUNT_INVALID: 400,
  CURRENCY_UNKNOWN: 400,
  PAYMENT_RULE: 422,
  PAYMENT_NOT_FOUND: 404,
  PAYMENT_DECLINED: 402,
  PAYMENT_BUSY: 409,
  PAYMENT_ID_CONFLICT: 409,
  PAYMENT_STATE: 409,
  PAYMENT_NOT_SENT: 503,
  PAYMENT_NOT_DONE: 504,
  INPUT_INVALID: 400,
  // offline
  OFFLINE_LIMIT: 422,
  OFFLINE_NOT_ELIGIBLE: 422,
  OFFLINE_NOT_FOUND: 404,
  OFFLINE_BODY_MISMATCH: 500,
  JOURNAL_MISSING: 404,
  JOURNAL_DAMAGED: 500,
  JOURNAL_UNWRITABLE: 503,
  DISK_SPACE_LOW: 503,
  // devices and link layer
  DEVICE_TIMEOUT: 504,
  DEVICE_DISCONNECTED: 503,
  DEVICE_PORT_BUSY: 500,
  DEVICE_PORT_PERMISSION: 500,
  DEVICE_PORT_MISSING: 500,
  DEVICE_ERROR: 500,
  DEVICE_BUSY: 409,
  LINK_CRC: 500,
  LINK_NO_ACK: 500,
  LINK_OVERSIZE: 500,
  // local API
  API_BAD_REQUEST: 400,
  API_BODY_TOO_LARGE: 413,
  API_UNSUPPORTED_MEDIA_TYPE: 415,
  API_UNAUTHORIZED: 401,
  API_FORBIDDEN_ORIGIN: 403,
  API_FORBIDDEN: 403,
  API_SIGN_IN_FAILED: 401,
  API_SIGN_IN_THROTTLED: 429,
  API_NOT_FOUND: 404,
  API_METHOD_NOT_ALLOWED: 405,
  API_IDEMPOTENCY_CONFLICT: 409,
  API_UNAVAILABLE: 503,
  LAN_PAIRING_REFUSED: 401,
  LAN_PAIRING_THROTTLED: 429,
  LAN_DISABLED: 409,
  INTERNAL: 500,
};

/** The status the local API answers an AgentError of this code with. */
export function httpStatusOf(code: ErrorCode): number {
  return HTTP_STATUS_BY_CODE[code];
}
