import type { Account } from '../../../generated/prisma/client.js';
import type { Db } from '../account-events.js';

/** An identity as the API shows it. */
export interface IdentityView {
  id: string;
  provider: string;
  email: string | null;
  createdAt: string;
}

export function toIdentityView(account: Account): IdentityView {
  return { id: account.id, provider: account.provider, email: account.email, createdAt: account.createdAt.toISOString() };
}

/** A provisional account taken over by its mailbox's owner loses the identities linked before. */
export async function removeIdentities(db: Db, userId: string): Promise<void> {
  await db.account.deleteMany({ where: { userId } });
}

/** Whether the user has a linked identity to sign in with (for refusing to remove their last way in). */
export async function hasIdentity(db: Db, userId: string): Promise<boolean> {
  return (await db.account.count({ where: { userId } })) > 0;
}

/** The account export's linked identities: provider, the address it reported, when it was linked. */
export async function exportIdentities(db: Db, userId: string): Promise<{ signInMethods: { identities: IdentityView[] } }> {
  const accounts = await db.account.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
  return { signInMethods: { identities: accounts.map(toIdentityView) } };
}
