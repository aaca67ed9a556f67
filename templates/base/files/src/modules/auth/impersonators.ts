import { AppError } from '../../http/app-error.js';
import type { Db, Impersonator } from './account-events.js';
import { impersonatorLookups } from './account-hooks.js';

/** The `method` of a session an admin started to act as its user. */
export const IMPERSONATION_METHOD = 'impersonation';

export const impersonationForbidden = () =>
  new AppError(403, 'IMPERSONATION_FORBIDDEN', 'An impersonation session cannot do this: only the user, signed in as themselves, can.');

/**
 * The admin behind the impersonation session `sessionId` while it may still act (their own session
 * lives and they are still an admin), else null. Without a module that starts impersonations,
 * always null: no impersonation session is ever accepted.
 */
export async function findImpersonator(db: Db, sessionId: string): Promise<Impersonator | null> {
  for (const lookup of impersonatorLookups) {
    const impersonator = await lookup(db, sessionId);
    if (impersonator) return impersonator;
  }
  return null;
}
