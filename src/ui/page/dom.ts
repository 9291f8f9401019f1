/** Small DOM helpers; text goes in with textContent only, never as HTML. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`page element #${id} is missing`);
  return el as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls !== undefined) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function show(node: HTMLElement, visible: boolean): void {
  node.hidden = !visible;
}

/** An input's trimmed text, or undefined when left empty (the field is then not sent). */
export function fieldValue(id: string): string | undefined {
  const v = byId<HTMLInputElement>(id).value.trim();
  return v === '' ? undefined : v;
}

/** Today as the terminal's local date, YYYY-MM-DD. */
export function today(): string {
  const d = new Date();
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
