import type { TextKey } from './texts-en.js';

/**
 * The clerk's sentence for each error code the agent can answer the page with
 * (docs/counter-page.md, "Local API and counter page", languages): what happened and what to
 * do, in the page's language. The agent's own English message stays behind "details" for the
 * field engineer. A code the agent answers must be here or in GENERIC_ERROR_CODES
 * (test/ui/error-texts.test.ts), so a new code cannot reach a German clerk in English.
 */
export const ERROR_TEXT: Readonly<Record<string, TextKey>> = {
  AUTH_UNKNOWN_TERMINAL: 'error.terminalRefused',
  AUTH_INVALID_GRANT: 'error.terminalRefused',
  AUTH_INVALID_CLIENT: 'error.terminalRefused',
  AUTH_TOKEN_INVALID: 'error.terminalRefused',
  AUTH_BINDING_MISMATCH: 'error.terminalRefused',
  AUTH_CERT_REFUSED: 'error.terminalRefused',
  PLATFORM_AUTH: 'error.terminalRefused',
  AUTH_NO_MERCHANT: 'error.noMerchant',
  AUTH_STOPPED: 'error.agentStopping',
  AUTH_SIGN_IN_REQUIRED: 'error.merchantSignIn',
  PLATFORM_NETWORK: 'error.platformDown',
  PLATFORM_TIMEOUT: 'error.platformDown',
  PLATFORM_SERVER: 'error.platformDown',
  PLATFORM_BAD_RESPONSE: 'error.platformDown',
  PLATFORM_REJECTED: 'error.platformRefused',
  PLATFORM_BAD_REQUEST: 'error.platformRefused',
  AMOUNT_INVALID: 'error.amount',
  CURRENCY_UNKNOWN: 'error.currency',
  PAYMENT_RULE: 'error.notAllowed',
  PAYMENT_NOT_FOUND: 'error.notFound',
  OFFLINE_NOT_FOUND: 'error.notFound',
  API_NOT_FOUND: 'error.notFound',
  PAYMENT_DECLINED: 'error.declined',
  PAYMENT_BUSY: 'error.busy',
  DEVICE_BUSY: 'error.busy',
  PAYMENT_ID_CONFLICT: 'error.duplicate',
  API_IDEMPOTENCY_CONFLICT: 'error.duplicate',
  PAYMENT_STATE: 'error.state',
  PAYMENT_NOT_SENT: 'error.notDone',
  PAYMENT_NOT_DONE: 'error.notDone',
  INPUT_INVALID: 'error.input',
  API_BAD_REQUEST: 'error.input',
  API_BODY_TOO_LARGE: 'error.input',
  API_UNSUPPORTED_MEDIA_TYPE: 'error.input',
  OFFLINE_LIMIT: 'error.offlineLimit',
  OFFLINE_NOT_ELIGIBLE: 'error.offlineNotEligible',
  JOURNAL_UNWRITABLE: 'error.storage',
  DISK_SPACE_LOW: 'error.storage',
  DEVICE_TIMEOUT: 'error.device',
  DEVICE_DISCONNECTED: 'error.device',
  DEVICE_ERROR: 'error.device',
  DEVICE_PORT_BUSY: 'error.device',
  DEVICE_PORT_PERMISSION: 'error.device',
  DEVICE_PORT_MISSING: 'error.device',
  API_UNAUTHORIZED: 'error.signedOut',
  API_FORBIDDEN: 'error.forbidden',
  API_SIGN_IN_FAILED: 'error.signInFailed',
  API_SIGN_IN_THROTTLED: 'error.signInThrottled',
  API_UNAVAILABLE: 'api.agentDown',
  LAN_DISABLED: 'registers.off',
};

/**
 * Codes that get the generic sentence on purpose: the agent's own faults and what only a
 * field engineer can act on (configuration, certificates, the serial link, a damaged
 * journal, a request the page never makes, a register's pairing).
 */
export const GENERIC_ERROR_CODES: readonly string[] = [
  'CONFIG_INVALID',
  'CONFIG_FILE_MISSING',
  'CONFIG_PERMISSIONS',
  'CERT_UNREADABLE',
  'CERT_KEY_MISMATCH',
  'CERT_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_NO_SERIAL',
  'KEY_PERMISSIONS',
  'OFFLINE_BODY_MISMATCH',
  'JOURNAL_MISSING',
  'JOURNAL_DAMAGED',
  'LINK_CRC',
  'LINK_NO_ACK',
  'LINK_OVERSIZE',
  'API_FORBIDDEN_ORIGIN',
  'API_METHOD_NOT_ALLOWED',
  'LAN_PAIRING_REFUSED',
  'LAN_PAIRING_THROTTLED',
  'INTERNAL',
];
