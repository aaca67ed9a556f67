import type { Db } from '../account-hooks.js';

/** A provisional account taken over by its mailbox's owner loses the password set before. */
export async function removePassword(db: Db, userId: string): Promise<void> {
  await db.passwordCredential.deleteMany({ where: { userId } });
}
