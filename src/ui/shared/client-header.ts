/** The header the CLI's client sends so the rows it makes record `cli` rather than `local-api` (docs/journal.md, "Journal"). */
export const CLIENT_HEADER = 'x-terminal-agent-client';

/** A request's id: the caller's when it sends a usable one, else made; every answer carries it (docs/local-api.md, "Request ids"). */
export const REQUEST_ID_HEADER = 'x-request-id';
