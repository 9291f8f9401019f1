import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'ta_session';

const ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The session cookie (docs/counter-page.md, "Local API and counter page"): HttpOnly, so no
 * script, ours included, can read it; SameSite=Strict, so no other site's page makes the
 * browser send it; Path=/. No `Secure`: the listener is plain http on loopback, whose
 * traffic never leaves the machine, so Secure would protect nothing, and whether a browser
 * keeps a Secure cookie set over http depends on the browser and the name used. No
 * Max-Age: the server ends sessions (session-store.ts).
 */
export function sessionCookie(id: string): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`;
}

/** Expires the cookie in the browser at sign-out. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}

/** The session id the request's Cookie header carries, if any is well formed. */
export function sessionIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (ID_SHAPE.test(value)) return value;
  }
  return undefined;
}
