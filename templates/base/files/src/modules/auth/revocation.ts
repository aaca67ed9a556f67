import type { User } from '../../generated/prisma/client.js';
import { revokeAllSteps, type Db } from './account-hooks.js';

/**
 * Revokes every access token of the user and voids every one-time secret they still hold (reset,
 * magic-link and verification links, exchange codes, mfa tokens): password change or reset,
 * logout-all, two-factor off, and an account take-over all end here.
 */
export async function revokeAllTokens(db: Db, user: Pick<User, 'id' | 'email'>): Promise<void> {
  await db.accessToken.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: new Date() } });
  // Sign-up links of an address have no user yet, so they are found by the address too.
  await db.oneTimeToken.deleteMany({ where: { usedAt: null, OR: [{ userId: user.id }, { email: user.email }] } });
  for (const step of revokeAllSteps) await step(db, user.id);
}
