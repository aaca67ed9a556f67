import type { PrismaClient } from '../../generated/prisma/client.js';
import { AppError } from '../../http/app-error.js';
import type { Db } from '../auth/account-events.js';

/** Whether a ban is in force at `now`: a timed ban ends by itself at its expiresAt. */
export function banInForce(ban: { expiresAt: Date | null } | null, now = new Date()): boolean {
  return ban !== null && (ban.expiresAt === null || ban.expiresAt > now);
}

/** The answer to a banned user: when a timed ban ends, never why it was given. */
export const accountBanned = (expiresAt: Date | null) =>
  new AppError(403, 'ACCOUNT_BANNED', expiresAt ? `This account is banned until ${expiresAt.toISOString()}.` : 'This account is banned.');

/** A banned user starts no session: every sign-in method and every refresh ask this first (sessionChecks hook). */
export async function refuseBannedUser(db: Db, userId: string): Promise<void> {
  const ban = await db.userBan.findUnique({ where: { userId }, select: { expiresAt: true } });
  if (ban && banInForce(ban)) throw accountBanned(ban.expiresAt);
}

/** Timed bans that have ended (they no longer count already; this only tidies up). */
export function deleteEndedBans(db: PrismaClient, now: Date): Promise<{ count: number }> {
  return db.userBan.deleteMany({ where: { expiresAt: { lt: now } } });
}
