/**
 * The counter page's path to the wire types (src/ui/page/ imports `../wire-types.js`, type
 * only, in its own build): they live in the shared part, src/ui/shared/wire-types.ts.
 */
export type * from './shared/wire-types.js';
