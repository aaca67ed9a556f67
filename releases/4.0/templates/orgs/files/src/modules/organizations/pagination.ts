import { z } from 'zod';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

const emptyAsMissing = (value: unknown) => (value === '' ? undefined : value);

/** ?limit= (1 to 200, default 50) and ?cursor= (the nextCursor of the previous page). */
export const pageQuery = z.object({
  limit: z.preprocess(
    emptyAsMissing,
    z.coerce
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`)
      .default(DEFAULT_PAGE_SIZE),
  ),
  cursor: z.preprocess(emptyAsMissing, z.string({ error: 'cursor must be a string' }).max(100, 'cursor is too long').optional()),
});

export type PageQuery = z.infer<typeof pageQuery>;

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
