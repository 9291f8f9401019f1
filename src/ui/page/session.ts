import type { ApiSessionAnswer } from '../wire-types.js';
import { ApiError } from './api-error.js';
import { currentSettings, t } from './i18n.js';

export type SessionAnswer = ApiSessionAnswer;
export type Clerk = NonNullable<ApiSessionAnswer['staff']>;

/** Fired on window when the agent answers 401: the session ended (timeout, sign-out elsewhere, agent restart). */
export const SESSION_ENDED = 'counter:session-ended';

/**
 * The staff session as the page sees it (docs/counter-page.md, "Local API and counter
 * page"): the cookie is HttpOnly, so the page never holds a credential; it asks who is
 * signed in, posts the username and password once, and signs out.
 */
export async function currentSession(): Promise<SessionAnswer> {
  try {
    const res = await fetch('/session', { cache: 'no-store', credentials: 'same-origin' });
    if (!res.ok) return { signedIn: false, counter: currentSettings() };
    return (await res.json()) as SessionAnswer;
  } catch {
    // The agent does not answer: the sign-in screen says so when the clerk tries.
    return { signedIn: false, counter: currentSettings() };
  }
}

/** Signs in; resolves with the clerk and the page's settings for them, rejects with the agent's message. */
export async function signIn(username: string, password: string): Promise<SessionAnswer & { staff: Clerk }> {
  let res: Response;
  try {
    res = await fetch('/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError('API_UNAVAILABLE', t('signIn.agentDown'), 0);
  }
  const json = (await res.json().catch(() => ({}))) as Partial<SessionAnswer> & {
    error?: { code?: string; message?: string };
  };
  if (!res.ok || json.staff === undefined)
    throw new ApiError(
      json.error?.code ?? 'INTERNAL',
      json.error?.message ?? t('signIn.failed', { status: res.status }),
      res.status,
    );
  return { signedIn: true, counter: json.counter ?? currentSettings(), staff: json.staff };
}

/**
 * Starts the merchant's sign-in with the platform (auth.mode custom_token): the agent answers
 * the realm's authorization URL, which the browser then opens; the realm sends it back to
 * the agent's callback, which signs the merchant in here.
 */
export async function platformAuthorizationUrl(): Promise<string> {
  let res: Response;
  try {
    res = await fetch('/platform-sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError('API_UNAVAILABLE', t('signIn.agentDown'), 0);
  }
  const json = (await res.json().catch(() => ({}))) as {
    authorizationUrl?: string;
    error?: { code?: string; message?: string };
  };
  if (!res.ok || typeof json.authorizationUrl !== 'string')
    throw new ApiError(
      json.error?.code ?? 'INTERNAL',
      json.error?.message ?? t('signIn.failed', { status: res.status }),
      res.status,
    );
  return json.authorizationUrl;
}

export async function signOut(): Promise<void> {
  await fetch('/session', { method: 'DELETE', cache: 'no-store', credentials: 'same-origin' }).catch(() => undefined);
}

/** Tells the page the session ended; the sign-in screen takes over. */
export function sessionEnded(): void {
  window.dispatchEvent(new Event(SESSION_ENDED));
}
