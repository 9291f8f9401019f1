import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/core/errors.js';
import {
  cancelBodySchema,
  captureAllBodySchema,
  referenceSchema,
  refundByWebBodySchema,
  emptyBodySchema,
  getQuerySchema,
  listQuerySchema,
  parseInput,
  queryObject,
  saleBodySchema,
  transactionIdSchema,
} from '../../src/ui/shared/schemas.js';

// The local API's request checks and the message a person reads for the first problem
// (docs/local-api.md), without a server: parseInput is what every route calls.
const problem = (
  schema: Parameters<typeof parseInput>[0],
  value: unknown,
  where: 'request body' | 'query' = 'request body',
): string => {
  try {
    parseInput(schema, value, where);
  } catch (err) {
    if (isAgentError(err, 'API_BAD_REQUEST')) return err.message;
    throw err;
  }
  throw new Error('accepted');
};
const SALE_FIELDS = 'method, scenario, amount, currency, merchantId, moto, walletId, via, order, reference';

describe('fields the API does not know', () => {
  it('one or several unknown fields are named, with the fields allowed there', () => {
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', tip: 1 })).toBe(
      `unknown field "tip" in the request body; allowed: ${SALE_FIELDS}`,
    );
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', tip: 1, pan: 'x' })).toBe(
      `unknown fields "tip", "pan" in the request body; allowed: ${SALE_FIELDS}`,
    );
    expect(problem(getQuerySchema, { force: '1' }, 'query')).toBe(
      'unknown field "force" in the query; allowed: refresh, merchantId',
    );
  });

  it('where nothing is expected it says so; inside an object it names where; a long name is cut', () => {
    expect(problem(emptyBodySchema, { amount: '1' })).toBe(
      'unknown field "amount" in the request body; nothing is expected here',
    );
    expect(problem(saleBodySchema, { method: 'moto', amount: '1.00', moto: { cvv: '123' } })).toBe(
      'unknown field "cvv" in the request body at moto',
    );
    expect(problem(captureAllBodySchema, { ['k'.repeat(50)]: 1 })).toBe(
      `unknown field "${'k'.repeat(40)}" in the request body; allowed: merchantId`,
    );
  });
});

describe('values of the wrong kind', () => {
  it('a body that is no object, a missing field, an unknown choice', () => {
    expect(problem(saleBodySchema, [1])).toBe('the request body must be a JSON object');
    expect(problem(saleBodySchema, null)).toBe('the request body must be a JSON object');
    expect(problem(saleBodySchema, { method: 'card' })).toBe('amount is required');
    expect(problem(saleBodySchema, { method: 'cash', amount: '1.00' })).toBe(
      'method: must be one of card, manual, moto, walletA, walletB',
    );
    expect(problem(cancelBodySchema, { reason: 'Other' })).toBe('reason: must be one of Technical, Functional');
  });

  it("a value of the wrong type gets the field's own advice, or the type expected", () => {
    expect(problem(saleBodySchema, { method: 'card', amount: 12.34 })).toBe(
      'amount must be text in major units such as "12.34"',
    );
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', currency: 978 })).toBe(
      'currency must be a currency code such as EUR',
    );
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', merchantId: 5 })).toBe(
      'merchantId must be a string',
    );
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', order: [] })).toBe('order must be an object');
    expect(problem(saleBodySchema, { method: 'moto', amount: '1.00', moto: 'yes' })).toBe('moto must be an object');
  });

  it('any other problem is the field and what it must be', () => {
    expect(problem(saleBodySchema, { method: 'card', amount: '   ' })).toBe('amount must not be empty');
    expect(problem(saleBodySchema, { method: 'card', amount: '1'.repeat(33) })).toBe('amount is too long');
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', currency: 'EURO' })).toBe(
      'currency must be a currency code such as EUR',
    );
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', merchantId: 'm'.repeat(65) })).toBe(
      'merchantId must be at most 64 characters',
    );
    expect(problem(saleBodySchema, { method: 'moto', amount: '1.00', moto: { phone: 'call me' } })).toBe(
      'moto.phone must be a phone number',
    );
    expect(problem(saleBodySchema, { method: 'moto', amount: '1.00', moto: { email: 'nobody' } })).toBe(
      'moto.email must be an e-mail address',
    );
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', reference: 'a\u0007b' })).toBe(
      'reference must be printable text (no control characters)',
    );
    expect(problem(transactionIdSchema, 'a b')).toBe('must be a transaction id (letters, digits, . _ : -)');
    expect(problem(transactionIdSchema, 'x'.repeat(81))).toBe('must be a transaction id (letters, digits, . _ : -)');
    expect(problem(saleBodySchema, { method: 'card', amount: '1.00', merchantId: '   ' })).toBe(
      'merchantId must not be empty',
    );
    expect(
      problem(saleBodySchema, {
        method: 'card',
        amount: '1.00',
        order: { orderId: 'o-1', orderDescription: 'd'.repeat(257) },
      }),
    ).toBe('order.orderDescription must be at most 256 characters');
  });

  it('a caller reference: text of 1 to 64 printable characters', () => {
    const ref = (reference: unknown) => problem(saleBodySchema, { method: 'card', amount: '1.00', reference });
    expect(ref(5)).toBe('reference must be text');
    expect(ref('   ')).toBe('reference must not be empty');
    expect(ref('r'.repeat(65))).toBe('reference must be at most 64 characters');
    expect(ref('\u0007ab')).toBe('reference must be printable text (no control characters)');
    expect(ref('ab\u0007')).toBe('reference must be printable text (no control characters)');
    expect(
      parseInput(saleBodySchema, { method: 'card', amount: '1.00', reference: 'r'.repeat(64) }, 'request body')
        .reference,
    ).toBe('r'.repeat(64));
    expect(referenceSchema.description).toBe(
      'your own reference of the sale (a receipt or order number): 1 to 64 printable characters',
    );
  });

  it('a phone number: digits, spaces, brackets and dashes, with or without a leading +, and nothing else', () => {
    const phone = (p: string) =>
      parseInput(saleBodySchema, { method: 'moto', amount: '1.00', moto: { phone: p } }, 'request body').moto?.phone;
    expect(phone('030 1234-567')).toBe('030 1234-567');
    expect(phone('+49 30 1234')).toBe('+49 30 1234');
    for (const bad of ['x030 1234', '030 1234x', '+49 30 1234 ext 5']) {
      expect(problem(saleBodySchema, { method: 'moto', amount: '1.00', moto: { phone: bad } }), bad).toBe(
        'moto.phone must be a phone number',
      );
    }
  });
});

describe('what passes', () => {
  it('a valid body comes back trimmed where text is trimmed', () => {
    expect(
      parseInput(
        saleBodySchema,
        {
          method: 'walletB',
          amount: ' 12.34 ',
          currency: 'eur',
          reference: ' R-1 ',
          merchantId: ' m-1 ',
          moto: { phone: '+49 (30) 123-45', email: 'buyer@example.com' },
          order: { orderId: 'o-1', orderDescription: 'two coffees' },
        },
        'request body',
      ),
    ).toStrictEqual({
      method: 'walletB',
      amount: '12.34',
      currency: 'eur',
      reference: 'R-1',
      merchantId: 'm-1',
      moto: { phone: '+49 (30) 123-45', email: 'buyer@example.com' },
      order: { orderId: 'o-1', orderDescription: 'two coffees' },
    });
    expect(parseInput(transactionIdSchema, 'ctid-1.2:3_x', 'query')).toBe('ctid-1.2:3_x');
    expect(parseInput(refundByWebBodySchema, { amount: '1.00', merchantId: 'm-1' }, 'request body')).toStrictEqual({
      amount: '1.00',
      merchantId: 'm-1',
    });
    expect(problem(refundByWebBodySchema, { approvalCode: '1' })).toBe(
      'unknown field "approvalCode" in the request body; allowed: amount, merchantId',
    );
    for (const refresh of ['0', '1', 'true', 'false'])
      expect(parseInput(getQuerySchema, { refresh }, 'query'), refresh).toStrictEqual({ refresh });
  });

  it('list query: a date of the calendar, a page size from 1 to 1000 as a number, an after id', () => {
    expect(parseInput(listQuerySchema, { date: '2025-03-01', limit: '1', after: 'c-12' }, 'query')).toStrictEqual({
      date: '2025-03-01',
      limit: 1,
      after: 'c-12',
    });
    expect(() => parseInput(listQuerySchema, { after: '' }, 'query')).toThrow(/^after /);
    expect(listQuerySchema.shape.after.description).toBe(
      "the last transaction id of the page before: the next page (the answer's `next`)",
    );
    for (const bad of ['x2025-03-01', '2025-03-01x'])
      expect(problem(listQuerySchema, { date: bad }, 'query'), bad).toBe('date must be a date such as 2025-03-01');
    for (const bad of ['x5', '5x'])
      expect(problem(listQuerySchema, { limit: bad }, 'query'), bad).toBe(
        'limit must be a whole number from 1 to 1000',
      );
    // Plain digits only: what a number parser would also read (exponents, hex) is refused.
    for (const bad of ['1e3', '12e1', '0x10', '5.0'])
      expect(problem(listQuerySchema, { limit: bad }, 'query'), bad).toBe(
        'limit must be a whole number from 1 to 1000',
      );
    expect(parseInput(listQuerySchema, { limit: '1000' }, 'query')).toStrictEqual({ limit: 1000 });
    expect(problem(listQuerySchema, { limit: '0' }, 'query')).toBe('limit must be a whole number from 1 to 1000');
    expect(problem(listQuerySchema, { limit: '1001' }, 'query')).toBe('limit must be a whole number from 1 to 1000');
    expect(problem(listQuerySchema, { limit: '12345' }, 'query')).toBe('limit must be a whole number from 1 to 1000');
    expect(problem(listQuerySchema, { date: '2025-3-1' }, 'query')).toBe('date must be a date such as 2025-03-01');
    expect(problem(listQuerySchema, { date: '2025-13-01' }, 'query')).toBe('date is not a calendar date');
  });
});

describe('the query string', () => {
  it('becomes a plain object; a repeated key is refused, naming it (cut to 40 characters)', () => {
    expect(queryObject(new URLSearchParams('date=2025-03-01&limit=5'))).toStrictEqual({
      date: '2025-03-01',
      limit: '5',
    });
    expect(() => queryObject(new URLSearchParams('limit=5&limit=6'))).toThrow('query parameter "limit" is given twice');
    const long = 'q'.repeat(50);
    expect(() => queryObject(new URLSearchParams(`${long}=1&${long}=2`))).toThrow(
      `query parameter "${'q'.repeat(40)}" is given twice`,
    );
  });
});
