/**
 * What the parts of the local API share (docs/architecture.md, "Layers"): the wire types
 * of requests and answers (the server, the CLI's client and the counter page), the request
 * schemas they are checked with, the table from error codes to HTTP statuses, the headers
 * and the per-install token file the client and the server agree on, and the sources the
 * composition root fills with the terminal's state.
 */
export * from './client-header.js';
export * from './error-status.js';
export * from './local-token.js';
export * from './offline-source.js';
export * from './report-schemas.js';
export type * from './report-wire-types.js';
export * from './schemas.js';
export * from './sources.js';
export type * from './staff-source.js';
export type * from './wire-types.js';
