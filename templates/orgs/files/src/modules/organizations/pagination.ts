import type { PageQuery } from '../../http/page-query.js';

/**
 * Lists are ordered by id; a page asks for the rows after the cursor and one row more than the
 * limit, to know whether there is a next page.
 */
export function afterCursor(page: PageQuery): { id?: { gt: string } } {
  return page.cursor ? { id: { gt: page.cursor } } : {};
}

/** Trims the extra row and returns the cursor of the next page, or null on the last one. */
export function toPage<Row extends { id: string }>(rows: Row[], page: PageQuery): { rows: Row[]; nextCursor: string | null } {
  if (rows.length <= page.limit) return { rows, nextCursor: null };
  const kept = rows.slice(0, page.limit);
  return { rows: kept, nextCursor: kept[kept.length - 1]!.id };
}
