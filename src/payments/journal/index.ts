export { Journal, JOURNAL_FILE, type JournalOptions, type ListOptions } from './journal.js';
export { journalMigrations, migrate, type Migration } from './migrations.js';
export { FINAL_STATES, CARD_DATA_STATES, type CardSecret, type JournalRow, type NewJournalRow, type JournalPatch } from './types.js';
