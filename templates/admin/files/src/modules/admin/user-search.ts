import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../http/app-error.js';
import type { Db } from '../auth/account-events.js';
import { adminUserInclude, toAdminUser, type AdminUser } from './admin-views.js';
import { matchesLiterally, matchingUsers } from './user-query.js';

export interface UserSearch {
  /** An email prefix or a part of the name. */
  query?: string;
  role?: 'user' | 'admin';
  banned?: boolean;
  limit: number;
  cursor?: string;
}

/** Where a page ended: the last user's sign-up time and id, newest first. */
interface Position {
  createdAt: Date;
  id: string;
}

const badCursor = () => new AppError(400, 'VALIDATION_ERROR', 'The request is invalid.', [{ path: 'cursor', message: 'is not a cursor this list gave' }]);

function encodeCursor({ createdAt, id }: Position): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

function decodeCursor(cursor: string): Position {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const date = new Date(String(createdAt));
    if (typeof createdAt === 'string' && typeof id === 'string' && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // not a cursor of ours
  }
  throw badCursor();
}

/** Bans in force at `now`: without an end, or ending later. */
const inForce = (now: Date): Prisma.UserBanWhereInput => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });

/**
 * Users, newest first, a keyset page at a time (@@index([createdAt, id]) on User): the cursor is
 * where the last page ended, so a deep page costs what the first does. `query` matches an email
 * prefix or a part of the name, whatever the case. On SQLite a query with `%` or `_` may give a
 * page shorter than `limit` with a next cursor (user-query.ts says why): follow nextCursor until null.
 */
export async function searchUsers(db: Db, search: UserSearch): Promise<{ users: AdminUser[]; nextCursor: string | null }> {
  const now = new Date();
  const filters: Prisma.UserWhereInput[] = [];
  if (search.query) filters.push(matchingUsers(search.query));
  if (search.role) filters.push({ adminRole: search.role === 'admin' ? { isNot: null } : { is: null } });
  if (search.banned !== undefined) filters.push(search.banned ? { ban: { is: inForce(now) } } : { NOT: { ban: { is: inForce(now) } } });
  if (search.cursor) {
    const after = decodeCursor(search.cursor);
    filters.push({ OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] });
  }
  const rows = await db.user.findMany({
    where: { AND: filters },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: search.limit + 1,
    include: adminUserInclude,
  });
  const page = rows.slice(0, search.limit);
  const last = page[page.length - 1];
  const users = page.filter((user) => !search.query || matchesLiterally(user, search.query));
  return { users: users.map((user) => toAdminUser(user, now)), nextCursor: rows.length > search.limit && last ? encodeCursor(last) : null };
}
