import type { Session } from '../../generated/prisma/client.js';
import type { Db, Impersonator } from './account-events.js';
import { findImpersonator, IMPERSONATION_METHOD } from './impersonators.js';

/** A session as the device list, the account export and the operators' API show it. */
export interface SessionView {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  method: string;
  userAgent: string | null;
  ip: string | null;
  /** The admin acting as the user, for an impersonation session. */
  impersonatedBy?: Impersonator;
}

/**
 * The sessions as the user sees them: an impersonation session names its admin, and one whose
 * admin may no longer act (their session ended, they lost the role) is left out, since the guard
 * no longer accepts it.
 */
export async function viewSessions(db: Db, sessions: Session[]): Promise<SessionView[]> {
  const views: SessionView[] = [];
  for (const { id, createdAt, lastUsedAt, expiresAt, method, userAgent, ip } of sessions) {
    const view: SessionView = { id, createdAt, lastUsedAt, expiresAt, method, userAgent, ip };
    if (method === IMPERSONATION_METHOD) {
      const impersonatedBy = await findImpersonator(db, id);
      if (!impersonatedBy) continue;
      view.impersonatedBy = impersonatedBy;
    }
    views.push(view);
  }
  return views;
}
