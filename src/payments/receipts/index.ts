/** Receipts and the end-of-day report (docs/receipts.md). */
export { ReportService, type ReportServiceDeps } from './report-service.js';
export { receiptText } from './receipt-text.js';
export { endOfDayText } from './end-of-day-text.js';
export { isPrinterWidth } from './printer-layout.js';
export { endOfDayCsv, END_OF_DAY_CSV_COLUMNS } from './end-of-day-csv.js';
export { buildReceipt, hasReceipt, lastFour, type ReceiptInput } from './receipt-data.js';
export { endOfDay, figureOf, type EndOfDayInput } from './end-of-day.js';
export {
  localDayRange,
  localTime,
  localDate,
  checkTimeZone,
  checkDate,
  readerTime,
  type LocalTime,
  type ReaderTime,
} from './zone-time.js';
export { readerStyle, terminalTimeZone, amountIn, type ReaderStyle } from './reader-style.js';
export { receiptWords, type ReceiptWords } from './receipt-words.js';
export * from './types.js';
