import type { Db } from '../account-events.js';

/** A provisional account taken over by its mailbox's owner loses the password set before. */
export async function removePassword(db: Db, userId: string): Promise<void> {
  await db.passwordCredential.deleteMany({ where: { userId } });
}

/** Whether the user can sign in with a password (so unlinking an identity leaves a way in). */
export async function hasPassword(db: Db, userId: string): Promise<boolean> {
  return (await db.passwordCredential.count({ where: { userId } })) > 0;
}

/** The account export's word on the password: whether one is set and when it last changed, never its hash. */
export async function exportPassword(db: Db, userId: string): Promise<{ signInMethods: { password: { set: boolean; updatedAt: Date | null } } }> {
  const credential = await db.passwordCredential.findUnique({ where: { userId }, select: { updatedAt: true } });
  return { signInMethods: { password: { set: credential !== null, updatedAt: credential?.updatedAt ?? null } } };
}
