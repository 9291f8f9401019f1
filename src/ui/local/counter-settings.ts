import type { Config } from '../../config/index.js';
import type { Logger } from '../../core/index.js';
import { minorDigits } from '../../payments/index.js';
import type { StaffView, ApiCounterSettings } from '../shared/index.js';

/**
 * The currencies the counter offers (payments.currencies, the default one always, first), with
 * their ISO 4217 minor digits. A configured code that is no payable ISO 4217 currency is left
 * out with a warning: the page offers nothing the agent would refuse.
 */
export function offeredCurrencies(config: Config, log: Logger): ApiCounterSettings['currencies'] {
  const codes = [...new Set([config.payments.defaultCurrency, ...config.payments.currencies])];
  const offered: ApiCounterSettings['currencies'] = [];
  for (const code of codes) {
    try {
      offered.push({ code, digits: minorDigits(code) });
    } catch {
      log.warn(
        { currency: code },
        'payments.currencies: not a payable ISO 4217 currency; the counter page does not offer it',
      );
    }
  }
  return offered;
}

/**
 * The page's language, zone, date-time pattern and currencies: the clerk's token claims first,
 * then the configuration (the pattern comes only from the claim: without it the page writes
 * dates and times per locale).
 */
export function counterSettings(
  config: Config,
  currencies: ApiCounterSettings['currencies'],
  staff: StaffView | undefined,
): ApiCounterSettings {
  const timeZone = staff?.zoneinfo ?? config.api.timeZone;
  return {
    locale: staff?.locale ?? config.api.locale,
    ...(timeZone !== undefined ? { timeZone } : {}),
    ...(staff?.dateTimeFormat !== undefined ? { dateTimeFormat: staff.dateTimeFormat } : {}),
    defaultCurrency: config.payments.defaultCurrency,
    currencies,
    outcomeSeconds: config.api.outcomeSeconds,
  };
}
