import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { call } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { FakeStaff } from './staff.js';

/** The counter page's settings in every /session answer: the configured language, zone and currencies. */
describe('counter settings', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi({
      extra: { staff: new FakeStaff() },
      config: {
        api: { port: 0, locale: 'de-CH', timeZone: 'Europe/Zurich' },
        payments: { defaultCurrency: 'CHF', currencies: ['EUR', 'XAU', 'ABC', 'CHF', 'KWD'] },
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('offers the default currency first, then the configured ones with their ISO 4217 digits; a code that is no payable currency is left out with a warning', async () => {
    const answer = (await call(s.url, 'GET', '/session')).json as { counter: unknown };
    expect(answer.counter).toEqual({
      locale: 'de-CH',
      timeZone: 'Europe/Zurich',
      defaultCurrency: 'CHF',
      currencies: [
        { code: 'CHF', digits: 2 },
        { code: 'EUR', digits: 2 },
        { code: 'KWD', digits: 3 },
      ],
      outcomeSeconds: 60,
    });
    const warned = s.sink
      .records()
      .filter(
        (r) => r.msg === 'payments.currencies: not a payable ISO 4217 currency; the counter page does not offer it',
      );
    expect(warned.map((r) => r.currency)).toEqual(['XAU', 'ABC']);
  });

  it('refuses a locale that is no language tag and a zone that is unknown, naming what to write', () => {
    expect(() => configSchema.parse({ api: { locale: 'not a locale!' } })).toThrow(/language tag such as en-GB/);
    expect(() => configSchema.parse({ api: { timeZone: 'Mars/Olympus_Mons' } })).toThrow(/IANA time zone/);
  });
});
