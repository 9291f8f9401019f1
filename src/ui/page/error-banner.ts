import { ApiError } from './api-error.js';
import { byId, el, show } from './dom.js';
import { ERROR_TEXT } from './error-texts.js';
import { t } from './i18n.js';
import { reasonCodeText } from './reason-texts.js';

/** The clerk's sentence for an error code; the generic one for a code the page has none for. */
export function errorText(code: string): string {
  return t((Object.hasOwn(ERROR_TEXT, code) ? ERROR_TEXT[code] : undefined) ?? 'error.other');
}

/**
 * The words of a failure for the person at the counter, in the page's language: the catalog's
 * sentence for the agent's error code (error-texts.ts), the generic one for anything else.
 */
export function messageOf(err: unknown): string {
  if (!(err instanceof ApiError)) return errorText('');
  // A refused cancel, refund or capture says why in the clerk's language, as the buttons do.
  const reason = reasonCodeText(err.reasonCode);
  if (reason !== undefined) return reason;
  // A missing permission is named, so the clerk knows what to ask a supervisor for.
  // The agent names several missing permissions with spaces between ("payment:cancel payment:refund").
  if (err.code === 'API_FORBIDDEN' && err.permission !== undefined)
    return t('error.forbiddenPermission', { permission: err.permission.split(' ').join(', ') });
  return errorText(err.code);
}

/** The agent's own (English) words of a failure, for the "details" control; none when the page wrote them itself. */
export function detailOf(err: unknown): string | undefined {
  const text = err instanceof Error ? err.message : String(err);
  return text === '' || text === messageOf(err) ? undefined : text;
}

/**
 * Refusals whose specific reason is what the clerk acts on (a rule of the sale, an amount, an
 * input, the platform's refusal): their agent words are shown open, under the sentence.
 */
const REASON_CODES = new Set(['PAYMENT_RULE', 'AMOUNT_INVALID', 'INPUT_INVALID', 'PLATFORM_REJECTED']);

function reasonMatters(err: unknown): boolean {
  return err instanceof ApiError && REASON_CODES.has(err.code);
}

/** A "details" control holding technical words (the agent's message, ids, hosts) for the field engineer. */
export function detailsControl(detail: string, testid: string, open = false): HTMLElement {
  const d = el('details', 'ops-details');
  d.dataset.testid = testid;
  if (open) d.open = true;
  d.append(el('summary', '', t('ops.details')), el('span', 'detail-text', detail));
  return d;
}

/** Puts a failure into `target`: the clerk's sentence, then the agent's words behind "details". */
export function showFailure(target: HTMLElement, err: unknown, testid: string): void {
  const detail = detailOf(err);
  const sentence = el('span', 'error-sentence', messageOf(err));
  if (detail === undefined) target.replaceChildren(sentence);
  else target.replaceChildren(sentence, detailsControl(detail, testid, reasonMatters(err)));
}

/**
 * The banner under the status bar (#error): what went wrong for any section, and warnings
 * staff must follow up (`warn`, e.g. an offline sale declined after upload).
 */
export class ErrorBanner {
  init(): void {
    byId('error-close').addEventListener('click', () => this.clear());
  }

  /** A sentence of the page's own (catalog) words, with technical words behind "details" when there are any. */
  show(text: string, warn = false, detail?: string, openDetail = false): void {
    const box = byId('error-text');
    box.replaceChildren(el('span', 'error-sentence', text));
    if (detail !== undefined && detail !== text) box.append(detailsControl(detail, 'error-details', openDetail));
    byId('error').classList.toggle('warn', warn);
    show(byId('error'), true);
  }

  /** A failure: the clerk's sentence for its code, the agent's words behind "details". */
  showError(err: unknown): void {
    this.show(messageOf(err), false, detailOf(err), reasonMatters(err));
  }

  clear(): void {
    show(byId('error'), false);
  }
}
