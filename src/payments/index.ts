export * from './api.js';
export { PaymentService, type PaymentServiceDeps } from './service.js';
export type { PaymentsPlatform } from './engine.js';
export type { OfflineHook, OfflineCandidate, OfflineSale, OfflineDecision } from './offline-hook.js';
export { cardProcessBody, cardFromRow, cardSecretOf } from './card-body.js';
export { Journal, JOURNAL_FILE, journalMigrations, migrate, FINAL_STATES, type JournalRow, type Migration, type CardSecret } from './journal/index.js';
export { parseAmount, parseMoney, formatAmount, formatMajor, assertAmount, minorDigits, normalizeCurrency, isKnownCurrency, type Money } from './money.js';
export { toView } from './view.js';
