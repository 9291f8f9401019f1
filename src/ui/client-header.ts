/** The header the CLI's client sends so the rows it makes record `cli` rather than `local-api` (docs/architecture.md, "Journal"). */
export const CLIENT_HEADER = 'x-terminal-agent-client';
