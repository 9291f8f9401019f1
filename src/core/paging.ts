/**
 * One page of a keyset-paged list (docs/local-api.md, "Paging"): the caller read one row
 * more than `limit`, which tells whether another page follows; `next` is then the id of the
 * page's last row, the `after` of the next request.
 */
export function onePage<T>(rows: readonly T[], limit: number, idOf: (row: T) => string): { items: T[]; next?: string } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return rows.length > limit && last !== undefined ? { items, next: idOf(last) } : { items };
}
