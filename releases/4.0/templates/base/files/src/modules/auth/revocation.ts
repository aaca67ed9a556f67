import type { User } from '../../generated/prisma/client.js';
import { revokeAllSteps, type Db } from './account-hooks.js';

/**
 * Ends every session of the user (their refresh tokens go with them, their access tokens fail the
 * guard from the next request on) and voids every one-time secret they still hold (reset,
 * magic-link and verification links, exchange codes, mfa tokens): password change or reset,
 * logout-all, two-factor off, and an account take-over all end here.
 */
export async function revokeAllTokens(db: Db, user: Pick<User, 'id' | 'email'>): Promise<void> {
  await db.session.deleteMany({ where: { userId: user.id } });
  // Sign-up links of an address have no user yet, so they are found by the address too.
  await db.oneTimeToken.deleteMany({ where: { usedAt: null, OR: [{ userId: user.id }, { email: user.email }] } });
  for (const step of revokeAllSteps) await step(db, user.id);
}
