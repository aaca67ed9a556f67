import type { Db } from './account-events.js';

/**
 * Writes the user's row inside a transaction, so that changes to one user's things that must see
 * each other (the last way to sign in, the number of keys) run one after the other: on PostgreSQL
 * the row stays locked until the transaction ends; SQLite has one writer at a time anyway.
 */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await db.user.update({ where: { id: userId }, data: { updatedAt: new Date() } });
}
