import type { Api } from './api.js';
import type { ErrorBanner } from './error-banner.js';
import type { MerchantPicker } from './merchant-picker.js';

/**
 * What the sections of the counter page share, built once by app.ts and passed to each.
 * Each section keeps its own state and DOM; what one section asks of another goes through
 * the hooks app.ts gives it (docs/counter-page.md, "Local API and counter page").
 */
export interface PageContext {
  /** The local API as the signed-in clerk (session cookie). */
  readonly api: Api;
  /** The merchant a sale is made for (sale entry, sale panel, status loads). */
  readonly merchants: MerchantPicker;
  /** Where any section shows an error. */
  readonly banner: ErrorBanner;
}
