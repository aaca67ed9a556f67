import type { Db } from '../auth/account-events.js';
import { toAuditEventView, type AuditEventView } from './audit-views.js';

/** The account export's activity: every event the user did or that was done to their account. */
export async function exportActivity(db: Db, userId: string): Promise<{ activity: AuditEventView[] }> {
  const events = await db.auditEvent.findMany({ where: { OR: [{ actorId: userId }, { targetType: 'user', targetId: userId }] }, orderBy: { seq: 'asc' } });
  return { activity: events.map(toAuditEventView) };
}
