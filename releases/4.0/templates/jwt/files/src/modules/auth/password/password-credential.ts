import type { Db } from '../account-hooks.js';

/** A provisional account taken over by its mailbox's owner loses the password set before. */
export async function removePassword(db: Db, userId: string): Promise<void> {
  await db.passwordCredential.deleteMany({ where: { userId } });
}

/** Whether the user can sign in with a password (so unlinking an identity leaves a way in). */
export async function hasPassword(db: Db, userId: string): Promise<boolean> {
  return (await db.passwordCredential.count({ where: { userId } })) > 0;
}
