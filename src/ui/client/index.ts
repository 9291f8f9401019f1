/** The client the CLI and diagnostics use to talk to a running agent's local API (docs/local-api.md). */
export { LocalApiClient, localApiUrl, readLocalToken, type ApiOperationRequest } from './local-api-client.js';
