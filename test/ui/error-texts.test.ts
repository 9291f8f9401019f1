import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/core/index.js';
import { ERROR_TEXT, GENERIC_ERROR_CODES } from '../../src/ui/page/error-texts.js';
import { de } from '../../src/ui/page/texts-de.js';
import { en } from '../../src/ui/page/texts-en.js';
import { HTTP_STATUS_BY_CODE } from '../../src/ui/shared/error-status.js';

/**
 * Every error code the local API can answer (each has a status in src/ui/shared/error-status.ts) has
 * a catalog sentence for the clerk, or is in the generic list on purpose
 * (docs/counter-page.md, "Local API and counter page", languages): a new code cannot reach a
 * German clerk in English.
 */
describe('error codes on the counter page', () => {
  const answerable = Object.keys(HTTP_STATUS_BY_CODE);

  it('the local API can answer every code (the status table covers them all)', () => {
    expect(answerable.sort()).toEqual(Object.values(ErrorCodes).sort());
  });

  it('every code has a catalog sentence or is deliberately generic', () => {
    const neither = answerable.filter((c) => !Object.hasOwn(ERROR_TEXT, c) && !GENERIC_ERROR_CODES.includes(c));
    expect(neither).toEqual([]);
  });

  it('no code is in both lists, and neither list names a code that does not exist', () => {
    expect(Object.keys(ERROR_TEXT).filter((c) => GENERIC_ERROR_CODES.includes(c))).toEqual([]);
    expect([...Object.keys(ERROR_TEXT), ...GENERIC_ERROR_CODES].filter((c) => !answerable.includes(c))).toEqual([]);
  });

  it('every sentence is in both catalogs, and German differs from English', () => {
    const keys = [...new Set([...Object.values(ERROR_TEXT), 'error.other' as const])];
    for (const key of keys) {
      expect(en[key], key).toBeTruthy();
      expect(de[key], key).toBeTruthy();
      expect(de[key], key).not.toBe(en[key]);
    }
  });
});
