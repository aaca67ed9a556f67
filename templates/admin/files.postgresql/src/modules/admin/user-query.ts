import type { Prisma } from '../../generated/prisma/client.js';

/** `%`, `_` and the escape character itself, taken literally by LIKE (PostgreSQL escapes with a backslash). */
const literally = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** Users whose email starts with `query` (addresses are stored lowercased) or whose name contains it, whatever the case (ILIKE). */
export function matchingUsers(query: string): Prisma.UserWhereInput {
  return { OR: [{ email: { startsWith: literally(query.toLowerCase()) } }, { name: { contains: literally(query), mode: 'insensitive' } }] };
}

/** Whether a user the query found really matches it: on PostgreSQL the database matched exactly. */
export function matchesLiterally(_user: { email: string; name: string | null }, _query: string): boolean {
  return true;
}
