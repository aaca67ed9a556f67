import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import type { Db } from '../auth/account-events.js';
import { lockAdmins } from './admin-lock.js';

export const lastAdmin = () =>
  new AppError(409, 'LAST_ADMIN', 'This is the last admin: make another user an admin first (npm run admin -- grant <email>).');

/** Whether the user has the role admin. */
export async function isAdmin(db: Db, userId: string): Promise<boolean> {
  return (await db.adminRole.count({ where: { userId } })) > 0;
}

/**
 * Before a user is deleted (deleteAccount hook): the last admin cannot go. (The impersonations an
 * admin started have already ended with their sessions, which the deletion revoked first.)
 */
export async function keepAnAdmin(db: Db, userId: string, ctx: AppContext): Promise<void> {
  if (!(await isAdmin(db, userId))) return;
  await lockAdmins(ctx, db);
  if ((await db.adminRole.count()) <= 1) throw lastAdmin();
}

/** The account export's role (exportSections hook). */
export async function exportRole(db: Db, userId: string): Promise<{ role: 'admin' | 'user' }> {
  return { role: (await isAdmin(db, userId)) ? 'admin' : 'user' };
}
