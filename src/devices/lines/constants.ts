/** Barcode scanner lines (docs/serial-protocol.md, "Barcode scanner"). */
export const CR = 0x0d;
export const LF = 0x0a;
/** A longer line is discarded whole. */
export const MAX_LINE = 512;
/**
 * Not in the peripherals' protocol (the agent's choice: docs/serial-protocol.md,
 * "Decisions", scanner lines): a scanner sends a code in one burst, so bytes
 * left without a terminator for this long are a broken line, and are dropped rather than
 * glued in front of the next scan.
 */
export const STALE_LINE_MS = 1_000;
