/** The local API's OpenAPI document (docs/local-api.md, "The document"). */
export { openApiDocument, openApiPath, openApiText } from './document.js';
export { OPERATIONS, type Operation } from './operations.js';
