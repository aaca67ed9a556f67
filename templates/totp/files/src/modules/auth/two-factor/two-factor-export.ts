import type { Db } from '../account-events.js';

/** The account export's two-factor state: on or off, and how many recovery codes are left; never the secret or a code. */
export async function exportTwoFactor(db: Db, userId: string): Promise<{ signInMethods: { twoFactor: object } }> {
  const secret = await db.twoFactorSecret.findUnique({ where: { userId }, select: { enabledAt: true } });
  const recoveryCodesLeft = await db.recoveryCode.count({ where: { userId, usedAt: null } });
  const enabledAt = secret?.enabledAt ?? null;
  return { signInMethods: { twoFactor: { enabled: enabledAt !== null, enabledAt, recoveryCodesLeft: enabledAt ? recoveryCodesLeft : 0 } } };
}
