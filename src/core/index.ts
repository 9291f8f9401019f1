/** The shared ground every folder stands on: errors, logging, time, backoff. */
export * from './errors.js';
export * from './logger.js';
export * from './log-level.js';
export { notifySystemdReady, type NotifyOptions } from './systemd-notify.js';
export { isJournalStream, syslogPriority, withSyslogPrefix } from './journald.js';
export * from './clock.js';
export * from './backoff.js';
export { isKnownTimeZone } from './time-zone.js';
export { onePage } from './paging.js';
export { jsonErrorText } from './json-error.js';
export {
  requestContext,
  requestIdFrom,
  requestLogFields,
  withRequestContext,
  type RequestContext,
} from './request-context.js';
export { qrCode } from './qr-code.js';
export { undiciAgent, undiciRequest, type UndiciRequestOptions } from './undici.js';
