import { describe, expect, it } from 'vitest';
import { jsonErrorText } from '../../src/core/index.js';

function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (err) {
    return err;
  }
  throw new Error(`${text} parsed`);
}

describe('jsonErrorText', () => {
  // V8 quotes a short text whole, the start of a long one with "..." after it, and the middle
  // of a long one with "..." on both sides.
  it.each([
    ['a short text', 'password=hunter2'],
    ['the start of a long text', 'password=hunter2&amount=1.00'],
    ['the middle of a long text', '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, hunter2, 13, 14, 15, 16, 17, 18, 19, 20]'],
  ])('drops %s V8 quotes, keeps the unexpected token', (_name, text) => {
    // V8 does quote the text (password=h... or ...hunter2...).
    expect((parseError(text) as Error).message).toMatch(/"[^"]*(password=h|hunter2)[^"]*"/);
    const shown = jsonErrorText(parseError(text));
    expect(shown).toMatch(/^Unexpected token '[ph]'$/);
  });

  it('keeps a message that quotes nothing, with its position', () => {
    expect(jsonErrorText(parseError('{"password": "hunter2" x}'))).toMatch(
      /^Expected ',' or '}' after property value in JSON at position 23/,
    );
    expect(jsonErrorText('plain')).toBe('plain');
  });
});
