import type { IncomingMessage } from 'node:http';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { tokenMatches } from '../shared/index.js';

/** The names this server answers to on its port: loopback only (docs/architecture.md, "Invariants" 5). */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** The origins of the counter page as a browser writes them. */
export function allowedOrigins(port: number): Set<string> {
  return new Set([...allowedHosts(port)].map((h) => `http://${h}`));
}

/**
 * A Host header naming anything but loopback on our port is a DNS-rebinding attempt: a
 * foreign page whose name now resolves to 127.0.0.1 must not read the counter page (which
 * embeds the token) nor reach the API.
 */
export function checkHost(req: IncomingMessage, hosts: Set<string>): void {
  const host = String(req.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) {
    throw new AgentError(
      ErrorCodes.API_FORBIDDEN_ORIGIN,
      "this address is not served: use http://127.0.0.1 with the agent's port",
    );
  }
}

/** A request from another web origin is refused; no CORS headers are ever sent. */
export function checkOrigin(req: IncomingMessage, origins: Set<string>): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if (!origins.has(origin.toLowerCase())) {
    throw new AgentError(ErrorCodes.API_FORBIDDEN_ORIGIN, 'requests from other web pages are refused');
  }
}

export function checkBearer(req: IncomingMessage, token: string): void {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    throw new AgentError(
      ErrorCodes.API_UNAUTHORIZED,
      'missing local API token: send Authorization: Bearer <token> (the token is in the data directory, local-api.token)',
    );
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (m === null || !tokenMatches(m[1] ?? '', token)) {
    throw new AgentError(
      ErrorCodes.API_UNAUTHORIZED,
      'wrong local API token (read it again from local-api.token in the data directory)',
    );
  }
}
