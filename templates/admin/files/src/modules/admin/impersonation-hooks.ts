import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Db, Impersonator } from '../auth/account-events.js';

/**
 * The admin behind an impersonation session while it may act: an admin still, with the session it
 * was started from still alive. One read, made by the guard on every request of that session only
 * (impersonators hook), so losing the role or ending that session ends it on every instance.
 */
export function findImpersonatingAdmin(db: Db, sessionId: string): Promise<Impersonator | null> {
  return db.user.findFirst({
    where: { adminRole: { isNot: null }, sessions: { some: { expiresAt: { gt: new Date() }, impersonationsStarted: { some: { sessionId } } } } },
    select: { id: true, email: true },
  });
}

/**
 * Impersonation sessions whose admin session has ended (its row is gone, so adminSessionId was
 * cleared). From that moment the guard refuses them and the device list leaves them out; this
 * deletes their rows with the other expired ones (expiredRows hook).
 */
export function deleteOrphanedImpersonations(db: PrismaClient): Promise<{ count: number }> {
  return db.session.deleteMany({ where: { impersonation: { is: { adminSessionId: null } } } });
}
