import type { Prisma } from '../../generated/prisma/client.js';

/**
 * Users whose email starts with `query` (addresses are stored lowercased) or whose name contains
 * it. Prisma turns these into SQLite's LIKE, which ignores the case of A to Z but has no escape
 * character (prisma/prisma#19506): a `%` or `_` in the query matches anything there, so what this
 * finds is checked again by matchesLiterally.
 */
export function matchingUsers(query: string): Prisma.UserWhereInput {
  return { OR: [{ email: { startsWith: query.toLowerCase() } }, { name: { contains: query } }] };
}

/** Whether a user the query found really matches it, `%` and `_` taken literally. */
export function matchesLiterally(user: { email: string; name: string | null }, query: string): boolean {
  const text = query.toLowerCase();
  return user.email.startsWith(text) || (user.name?.toLowerCase().includes(text) ?? false);
}
