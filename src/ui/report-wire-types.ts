/**
 * The counter page's path to the receipt and report wire types (src/ui/page/ imports
 * `../report-wire-types.js`, type only, in its own build): they live in the shared part,
 * src/ui/shared/report-wire-types.ts.
 */
export type * from './shared/report-wire-types.js';
