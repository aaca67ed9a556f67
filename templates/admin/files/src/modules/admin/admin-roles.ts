import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/app-error.js';
import { recordEvent, userRef } from '../auth/events.js';
import { IMPERSONATION_METHOD } from '../auth/impersonators.js';
import { isAdmin, lastAdmin } from './admin-account.js';
import { lockAdmins } from './admin-lock.js';

export type Role = 'user' | 'admin';

/**
 * Gives or takes the role admin: the one place that writes it (the operators' API and
 * `npm run admin`). Under the admins' lock, so the app always keeps one admin (409 LAST_ADMIN),
 * also when two admins demote each other at the same moment. `actorId` is the admin asking, who
 * must still be one under the lock (the command line has none).
 *
 * Taking the role ends every impersonation that admin started; giving it ends every impersonation
 * of that user, since an admin is never impersonated. Both take effect on the next request: the
 * guard and the admin routes read the role every time.
 */
export async function setRole(ctx: Pick<AppContext, 'prisma' | 'config'>, userId: string, role: Role, actorId?: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    await lockAdmins(ctx, tx);
    if (actorId && !(await isAdmin(tx, actorId))) throw forbidden('Only an admin can change roles.');
    if (role === 'admin') {
      await tx.adminRole.upsert({ where: { userId }, create: { userId }, update: {} });
      await tx.session.deleteMany({ where: { userId, method: IMPERSONATION_METHOD } });
      await recordEvent(ctx, tx, { action: 'admin.role_changed', target: userRef(userId), metadata: { role } });
      return;
    }
    if (!(await isAdmin(tx, userId))) return;
    if ((await tx.adminRole.count()) <= 1) throw lastAdmin();
    await tx.adminRole.delete({ where: { userId } });
    await tx.session.deleteMany({ where: { impersonation: { is: { adminId: userId } } } });
    await recordEvent(ctx, tx, { action: 'admin.role_changed', target: userRef(userId), metadata: { role } });
  });
}
