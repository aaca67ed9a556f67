import type { PrismaClient } from '../../../generated/prisma/client.js';

/** Auth.js sessions and mailed sign-in links past their expiry: Auth.js refuses them anyway. */
export async function deleteExpiredAuthjsRows(db: PrismaClient, now: Date): Promise<{ count: number }> {
  const sessions = await db.authjsSession.deleteMany({ where: { expires: { lt: now } } });
  const links = await db.authjsVerificationToken.deleteMany({ where: { expires: { lt: now } } });
  return { count: sessions.count + links.count };
}
