import type { Account } from '../../../generated/prisma/client.js';
import type { Db } from '../account-hooks.js';

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
