import { ApiError } from './api.js';
import { byId, show } from './dom.js';

/** The words of a failure for the person at the counter: the agent's own when it answered. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The banner under the status bar (#error): what went wrong for any section, and warnings
 * staff must follow up (`warn`, e.g. an offline sale declined after upload).
 */
export class ErrorBanner {
  init(): void {
    byId('error-close').addEventListener('click', () => this.clear());
  }

  show(text: string, warn = false): void {
    byId('error-text').textContent = text;
    byId('error').classList.toggle('warn', warn);
    show(byId('error'), true);
  }

  clear(): void {
    show(byId('error'), false);
  }
}
