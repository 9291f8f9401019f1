import { describe, expect, it } from 'vitest';
import {
  capturedOf,
  eventKey,
  isCancelRecord,
  newEvents,
  publicEvent,
  qrOf,
  readAmount,
} from '../../src/payments/records.js';

// The amount and QR readers of platform records (docs/platform-contract.md, "Tolerance of
// answers", amounts, and "Decisions where the spec is silent", where the QR is), and the
// events a sale keeps and shows. records.test.ts has the common cases; these are the edges.
describe('an amount given as `amount`', () => {
  it('zero is an amount (a capture of nothing), a negative or fractional number is not', () => {
    expect(readAmount({ amount: 0, currency: 'EUR' })).toBe(0);
    expect(readAmount({ amount: -1, currency: 'EUR' })).toBeUndefined();
    expect(readAmount({ amount: 0.5, currency: 'EUR' })).toBeUndefined();
    expect(readAmount({ amount: 2 ** 53, currency: 'EUR' })).toBeUndefined();
  });

  it('digits as text, with or without spaces around them, up to 15 of them; any other text is not an amount', () => {
    expect(readAmount({ amount: '7' })).toBe(7);
    expect(readAmount({ amount: '1250' })).toBe(1250);
    expect(readAmount({ amount: ' 1250\t' })).toBe(1250);
    expect(readAmount({ amount: '999999999999999' })).toBe(999_999_999_999_999);
    for (const amount of ['1000000000000000', '', ' ', '12.50', '-5', '12 EUR', 'EUR 12', '1 2', '١٢']) {
      expect(readAmount({ amount, currency: 'EUR' }), JSON.stringify(amount)).toBeUndefined();
    }
  });

  it('an `amount` given as a number is the amount, even a wrong one; an `amount` text it cannot read leaves `value` to say it', () => {
    expect(readAmount({ amount: -1, value: '1250', currency: 'EUR' })).toBeUndefined();
    expect(readAmount({ amount: '12 EUR', value: '1250', currency: 'EUR' })).toBe(1250);
    expect(readAmount({ amount: null, value: '1250', currency: 'EUR' })).toBe(1250);
  });
});

describe('an amount given as `value` text', () => {
  it("digits next to `currency` are minor units, whatever the currency's digits", () => {
    expect(readAmount({ value: '1250', currency: 'KWD' })).toBe(1250);
    expect(readAmount({ value: '1250', currency: 'ZZZ' })).toBe(1250);
    expect(readAmount({ value: '1250', currency: 'EUR', currency_code: 'JPY' })).toBe(1250);
    expect(readAmount({ value: '1250' }, 'EUR')).toBe(1250);
  });

  it("digits next to `currency_code` alone are major units (the fee objects' form)", () => {
    expect(readAmount({ value: '12', currency_code: 'KWD' })).toBe(12_000);
    expect(readAmount({ value: '12', currency: 7, currency_code: 'EUR' })).toBe(1200);
  });

  it("a decimal point makes major units, converted with the currency's digits: `currency` first, then `currency_code`, then the sale's", () => {
    expect(readAmount({ value: '12.5', currency: 'JPY', currency_code: 'EUR' })).toBeUndefined();
    expect(readAmount({ value: '12.5', currency: 'EUR', currency_code: 'JPY' })).toBe(1250);
    expect(readAmount({ value: '12.5', currency: 7, currency_code: 'EUR' }, 'JPY')).toBe(1250);
    expect(readAmount({ value: '12.5' }, 'KWD')).toBe(12_500);
    expect(readAmount({ value: '12.5', currency_code: 'EUR' }, 'JPY')).toBe(1250);
  });

  it('trailing zeros of the fraction change nothing, and a point with no fraction is whole units', () => {
    expect(readAmount({ value: '12.', currency: 'EUR' })).toBe(1200);
    expect(readAmount({ value: '12.000000000', currency: 'EUR' })).toBe(1200);
    expect(readAmount({ value: '1200.0', currency: 'JPY' })).toBe(1200);
    expect(readAmount({ value: '1200.', currency: 'JPY' })).toBe(1200);
    expect(readAmount({ value: '0.05', currency: 'EUR' })).toBe(5);
    expect(readAmount({ value: '0.34', currency: 'EUR' })).toBe(34);
  });

  it('more fraction digits than the currency has, more than 9 or 15 whole digits, or any other text: not an amount', () => {
    for (const value of [
      '12.005',
      '1.0000000000',
      '1000000000000000.5',
      '.5',
      '12.5.0',
      '12,50',
      '+12.50',
      '12.50 EUR',
      'EUR 12.50',
      '',
      'x',
    ]) {
      expect(readAmount({ value, currency: 'EUR' }), value).toBeUndefined();
    }
    expect(readAmount({ value: '1200.5', currency: 'JPY' })).toBeUndefined();
  });

  it('an amount beyond what a number holds exactly is not an amount', () => {
    expect(readAmount({ value: '999999999999999.99', currency: 'EUR' })).toBeUndefined();
    expect(readAmount({ value: '90071992547409.91', currency: 'EUR' })).toBe(9_007_199_254_740_991);
    expect(readAmount({ value: '90071992547409.92', currency: 'EUR' })).toBeUndefined();
  });

  it('spaces around the text are allowed', () => {
    expect(readAmount({ value: ' 12.50\n', currency: 'EUR' })).toBe(1250);
  });

  it('no object, or a list: no amount', () => {
    expect(readAmount(['1250'], 'EUR')).toBeUndefined();
    expect(readAmount([1250], 'EUR')).toBeUndefined();
    expect(readAmount(1250, 'EUR')).toBeUndefined();
  });
});

describe('what was captured on a card sale', () => {
  it('only capture events count, in any casing of their type, and the last one that was not refused or failed', () => {
    const capture = (amount: number, result?: unknown, eventType = 'cardCaptureResult') => ({
      eventType,
      ...(result !== undefined ? { result } : {}),
      captureAmount: { amount },
    });
    expect(capturedOf({ events: [capture(500, 'Accepted'), capture(700, 'Accepted', 'CAPTURE')] })).toBe(700);
    expect(capturedOf({ events: [capture(500, 'Accepted'), capture(700, 'Accepted', 'refundResult')] })).toBe(500);
    expect(capturedOf({ events: [capture(500, 'Accepted'), { eventType: 7, captureAmount: { amount: 900 } }] })).toBe(
      500,
    );
    expect(capturedOf({ events: [capture(500, 'Accepted'), capture(700, 'Failed')] })).toBe(500);
    expect(capturedOf({ events: [capture(500, 'Accepted'), capture(700, 'error')] })).toBe(500);
    expect(capturedOf({ events: [capture(500, 'Accepted'), capture(700, 'Declined')] })).toBe(500);
  });

  it('a capture without a result, or with one still going, counts; one without a readable amount changes nothing', () => {
    expect(capturedOf({ events: [{ eventType: 'cardCaptureResult', captureAmount: { amount: 600 } }] })).toBe(600);
    expect(
      capturedOf({ events: [{ eventType: 'cardCaptureResult', result: 'Pending', captureAmount: { amount: 600 } }] }),
    ).toBe(600);
    expect(
      capturedOf({ events: [{ eventType: 'cardCaptureResult', result: 5, captureAmount: { amount: 600 } }] }),
    ).toBe(600);
    expect(
      capturedOf({
        events: [
          { eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { amount: 600 } },
          { eventType: 'cardCaptureResult', result: 'Accepted' },
        ],
      }),
    ).toBe(600);
    expect(capturedOf({ events: [{ eventType: 'cardCaptureResult', result: 'Accepted' }] })).toBeUndefined();
    expect(capturedOf({})).toBeUndefined();
  });

  it("a capture amount in major units is read in the sale's currency", () => {
    expect(
      capturedOf(
        { events: [{ eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { value: '6.00' } }] },
        'EUR',
      ),
    ).toBe(600);
    expect(
      capturedOf({
        events: [{ eventType: 'cardCaptureResult', result: 'Accepted', captureAmount: { value: '6.00' } }],
      }),
    ).toBeUndefined();
  });
});

describe('the QR of a consumer-scan answer', () => {
  it('walletA: the code of the order code form, with its expiry when it has one', () => {
    const walletA = (form: Record<string, unknown>) => ({
      events: [{ eventType: 'walletAResult', resultData: { orderCodeForm: form } }],
    });
    expect(
      qrOf(walletA({ codeDetails: { codeValue: 'https://qr.example/a' }, expireTime: '2026-03-01T10:15:00+08:00' })),
    ).toStrictEqual({
      codeValue: 'https://qr.example/a',
      expireTime: '2026-03-01T10:15:00+08:00',
    });
    expect(qrOf(walletA({ codeDetails: { codeValue: 'https://qr.example/a' }, expireTime: 5 }))).toStrictEqual({
      codeValue: 'https://qr.example/a',
    });
  });

  it('walletB: the code of the result data, with its expiry when it has one', () => {
    expect(
      qrOf({ events: [{ resultData: { codeValue: 'weixin://b', expireTime: '2026-03-01T10:15:00Z' } }] }),
    ).toStrictEqual({ codeValue: 'weixin://b', expireTime: '2026-03-01T10:15:00Z' });
    expect(qrOf({ events: [{ resultData: { codeValue: 'weixin://b', expireTime: null } }] })).toStrictEqual({
      codeValue: 'weixin://b',
    });
  });

  it('walletB: also one level deeper, in a data object of the result data', () => {
    expect(
      qrOf({
        events: [
          { resultData: { note: 'x', walletBData: { codeValue: 'weixin://c', expireTime: '2026-03-01T10:15:00Z' } } },
        ],
      }),
    ).toStrictEqual({
      codeValue: 'weixin://c',
      expireTime: '2026-03-01T10:15:00Z',
    });
    expect(qrOf({ events: [{ resultData: { walletBData: { codeValue: 'weixin://c' } } }] })).toStrictEqual({
      codeValue: 'weixin://c',
    });
  });

  it('a code that is not text is no code; the next place, then the next event, is looked at', () => {
    const record = {
      events: [
        { eventType: 'saleRequest' },
        { resultData: 'none' },
        { resultData: null },
        { resultData: [{ codeValue: 'in a list' }] },
        {
          resultData: {
            orderCodeForm: { codeDetails: { codeValue: 7 } },
            codeValue: 8,
            inner: { codeValue: 9 },
            list: [{ codeValue: 'in a list' }],
          },
        },
        { resultData: { orderCodeForm: { codeDetails: { codeValue: 7 } }, codeValue: 'weixin://d' } },
      ],
    };
    expect(qrOf(record)).toStrictEqual({ codeValue: 'weixin://d' });
  });

  it("walletA's form comes first, then the result data's own code, then one level deeper", () => {
    const data = {
      inner: { codeValue: 'deeper' },
      codeValue: 'own',
      orderCodeForm: { codeDetails: { codeValue: 'form' } },
    };
    expect(qrOf({ events: [{ resultData: data }] })?.codeValue).toBe('form');
    expect(qrOf({ events: [{ resultData: { ...data, orderCodeForm: undefined } }] })?.codeValue).toBe('own');
    expect(
      qrOf({ events: [{ resultData: { inner: { codeValue: 'deeper' } } }, { resultData: { codeValue: 'later' } }] })
        ?.codeValue,
    ).toBe('deeper');
  });

  it('no event with a code: no QR', () => {
    expect(qrOf({ events: [{ resultData: { orderCodeForm: { codeDetails: null } } }] })).toBeUndefined();
    expect(qrOf({})).toBeUndefined();
  });
});

describe('the events a sale keeps and shows', () => {
  it('a cancel record is one of transactionType Cancel in any casing and spacing', () => {
    expect(isCancelRecord({ transactionType: ' cancel ' })).toBe(true);
    expect(isCancelRecord({ transactionType: 'Sale' })).toBe(false);
    expect(isCancelRecord({})).toBe(false);
  });

  it("only events not seen yet are new, in the platform's order; an event is the same when all its fields are", () => {
    const a = { eventType: 'saleRequest' };
    const b = { eventType: 'saleResult', result: 'Accepted' };
    const c = { eventType: 'saleResult', result: 'Refused' };
    expect(newEvents([a], [a, c, b])).toStrictEqual([c, b]);
    expect(newEvents([], [a, b])).toStrictEqual([a, b]);
    expect(newEvents([a, b], [{ eventType: 'saleRequest' }])).toStrictEqual([]);
    expect(eventKey(b)).not.toBe(eventKey(c));
  });

  it('what is shown of an event carries no card data, however deep, and everything else', () => {
    const event = {
      eventType: 'saleRequest',
      encryptedData: 'E',
      pinblock: 'P',
      pinBlock: 'P',
      pan: '4111111111111111',
      track2: 'T',
      cvv: '123',
      card: { maskedPan: '411111******1111', pan: '4111111111111111', cvv: '123' },
      amount: { amount: 1000, currency: 'EUR' },
    };
    expect(publicEvent(event)).toStrictEqual({
      eventType: 'saleRequest',
      card: { maskedPan: '411111******1111' },
      amount: { amount: 1000, currency: 'EUR' },
    });
  });

  it('gives what the JSON round trip without card-data keys gives, for any value, and never the input objects', () => {
    const jsonCopy = (e: Record<string, unknown>): unknown =>
      JSON.parse(
        JSON.stringify(e, (k, v: unknown) =>
          ['encryptedData', 'pinblock', 'pinBlock', 'pan', 'track2', 'cvv'].includes(k) ? undefined : v,
        ),
      );
    const nested = {
      eventType: 'x',
      list: [{ pan: '4111111111111111', keep: 1 }, [{ cvv: '1', n: -0 }], 'a', null, true],
      gone: undefined,
    };
    const awkward: Array<Record<string, unknown>> = [
      nested,
      { eventType: 'date', at: new Date(0), n: Number.NaN, list: [undefined, () => 1] },
      JSON.parse('{"eventType":"proto","__proto__":{"pan":"4111111111111111","a":1}}') as Record<string, unknown>,
      Object.assign(Object.create(null) as Record<string, unknown>, { eventType: 'null prototype', track2: 'T' }),
    ];
    for (const e of awkward) expect(publicEvent(e)).toStrictEqual(jsonCopy(e));
    const copy = publicEvent(nested);
    expect(copy.list).not.toBe(nested.list);
    expect(Object.getPrototypeOf(publicEvent(awkward[2] as Record<string, unknown>))).toBe(Object.prototype);
  });
});
