/** Barcode scanner lines (serial-devices.md section 3). */
export const CR = 0x0d;
export const LF = 0x0a;
/** A longer line is discarded whole. */
export const MAX_LINE = 512;
/**
 * Not in the spec (the agent's choice): a scanner sends a code in one burst, so bytes
 * left without a terminator for this long are a broken line, and are dropped rather than
 * glued in front of the next scan.
 */
export const STALE_LINE_MS = 1_000;
