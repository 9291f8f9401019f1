export * from './constants.js';
export { LineParser, type LineUnit, type LineParserOptions } from './parser.js';
