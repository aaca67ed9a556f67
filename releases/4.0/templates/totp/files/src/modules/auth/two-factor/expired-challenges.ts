import type { PrismaClient } from '../../../generated/prisma/client.js';

/** Second-step challenges past their expiry, used or not: their mfaToken is refused anyway. */
export function deleteExpiredChallenges(db: PrismaClient, now: Date): Promise<{ count: number }> {
  return db.twoFactorChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
}
