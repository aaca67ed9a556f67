import type { Db } from '../account-hooks.js';

/**
 * Removes a user's TOTP secret, recovery codes and pending mfa tokens: when they turn two-factor
 * off, and when a provisional account is taken over by its mailbox's owner (the caller also sets
 * user.twoFactorEnabled to false).
 */
export async function removeTwoFactor(db: Db, userId: string): Promise<void> {
  await db.twoFactorSecret.deleteMany({ where: { userId } });
  await db.recoveryCode.deleteMany({ where: { userId } });
  await db.twoFactorChallenge.deleteMany({ where: { userId } });
}
