import type { Db } from '../account-hooks.js';

/** Whether the user can sign in with a passkey (for refusing to remove their last way in). */
export async function hasPasskey(db: Db, userId: string): Promise<boolean> {
  return (await db.passkey.count({ where: { userId } })) > 0;
}

/** A user with a passkey can use it as their second factor too. */
export async function passkeySecondFactor(db: Db, userId: string): Promise<string[]> {
  return (await hasPasskey(db, userId)) ? ['passkey'] : [];
}

/** When every session of the user ends, their pending registration and second-factor challenges die too. */
export async function voidPasskeyChallenges(db: Db, userId: string): Promise<void> {
  await db.passkeyChallenge.deleteMany({ where: { userId } });
}

/**
 * A mailbox proof takes a provisional account over: passkeys added before it may be a squatter's,
 * so they go, with the user handle they carry (a new one is made for the owner's passkeys).
 */
export async function removePasskeys(db: Db, userId: string): Promise<void> {
  await db.passkey.deleteMany({ where: { userId } });
  await db.passkeyHandle.deleteMany({ where: { userId } });
  await db.passkeyChallenge.deleteMany({ where: { userId } });
}
