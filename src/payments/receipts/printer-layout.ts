import type { PrinterWidth } from './types.js';

/**
 * Plain-text layout for receipt printers of 32 or 48 columns (docs/receipts.md, "Layout"):
 * every line at most `width` characters, no trailing spaces, no control characters.
 * Pure functions: text in, lines out.
 */

/** Control characters and line breaks become spaces: one field never breaks the layout or drives the printer. */
export function clean(text: string): string {
  return (
    text
      // Control characters would drive the printer instead of printing: each becomes a space.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
      .replace(/ +/g, ' ')
      .trim()
  );
}

/** Words to lines of at most `width`; a word longer than a line is cut into pieces. */
export function wrap(text: string, width: number): string[] {
  const words = clean(text)
    .split(' ')
    .filter((w) => w !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    let w = word;
    while (w.length > width) {
      if (line !== '') {
        lines.push(line);
        line = '';
      }
      lines.push(w.slice(0, width));
      w = w.slice(width);
    }
    if (w === '') continue;
    if (line === '') line = w;
    else if (line.length + 1 + w.length <= width) line = `${line} ${w}`;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Each wrapped line centred (the extra space of an odd remainder on the right, then trimmed). */
export function center(text: string, width: number): string[] {
  return wrap(text, width).map((l) => `${' '.repeat(Math.floor((width - l.length) / 2))}${l}`);
}

/**
 * A label on the left and a value on the right of one line; when both do not fit (at least
 * one space between), the label gets its own line(s) and the value follows right-aligned,
 * cut into pieces when it is longer than a line (ids are never shortened).
 */
export function pair(label: string, value: string, width: number): string[] {
  const l = clean(label);
  const v = clean(value);
  if (v === '') return wrap(l, width);
  if (l.length + 1 + v.length <= width) return [`${l}${' '.repeat(width - l.length - v.length)}${v}`];
  const out = wrap(l, width);
  let rest = v;
  while (rest.length > width) {
    // Break after the last hyphen or space that fits (ids are UUIDs), else at the width.
    const cut = Math.max(rest.lastIndexOf('-', width - 1), rest.lastIndexOf(' ', width - 1));
    const at = cut > 0 ? cut + 1 : width;
    out.push(rest.slice(0, at).trimEnd().padStart(width));
    rest = rest.slice(at).trimStart();
  }
  if (rest !== '') out.push(rest.padStart(width));
  return out;
}

/**
 * A label and figures right-aligned in fixed columns (the end-of-day tables): the last
 * column ends at the right edge, the others `gap` apart with their own widths. When the
 * label does not fit before the first column it goes on a line of its own.
 */
export function columns(
  label: string,
  cells: readonly string[],
  widths: readonly number[],
  width: number,
  gap = 1,
): string[] {
  const right = cells.map((c, i) => clean(c).padStart(widths[i] ?? 0)).join(' '.repeat(gap));
  const l = clean(label);
  if (right.length > width) return [...wrap(l, width), ...cells.map((c) => clean(c).padStart(width).slice(-width))];
  if (l.length + 1 + right.length <= width) return [`${l}${' '.repeat(width - l.length - right.length)}${right}`];
  return [...wrap(l, width), right.padStart(width)];
}

export function rule(width: number, char = '-'): string {
  return char.repeat(width);
}

export function isPrinterWidth(n: number): n is PrinterWidth {
  return n === 32 || n === 48;
}

/** Lines joined with \n and ended with one; every line trimmed at its end. */
export function printout(lines: readonly string[]): string {
  return `${lines.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}
