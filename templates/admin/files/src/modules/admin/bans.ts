import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/app-error.js';
import { endCredentialSteps } from '../auth/account-hooks.js';
import { recordEvent, userRef } from '../auth/events.js';
import { revokeAllTokens } from '../auth/revocation.js';
import { isAdmin } from './admin-account.js';
import { userNotFound } from './admin-users.js';

const HOUR_MS = 60 * 60 * 1000;

export interface Ban {
  /** For the admins; the user is never shown it. */
  reason: string;
  /** A timed ban ends by itself after this many hours; without it, an admin lifts it. */
  expiresInHours?: number;
}

/**
 * Bans a user, in one transaction that is also a revocation: the security version rises (a
 * sign-in of theirs still running starts no session), every session and one-time token ends, and
 * so do the credentials other modules keep (API keys), for good: lifting the ban brings none back.
 * From then on every way in answers 403 ACCOUNT_BANNED (ban-check.ts). Never an admin, nor oneself.
 */
export async function banUser(ctx: AppContext, adminId: string, userId: string, ban: Ban): Promise<void> {
  if (userId === adminId) throw forbidden('You cannot ban yourself.');
  const expiresAt = ban.expiresInHours ? new Date(Date.now() + ban.expiresInHours * HOUR_MS) : null;
  await ctx.prisma.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
    if (!user) throw userNotFound();
    if (await isAdmin(tx, userId)) throw forbidden('An admin cannot be banned: take the role away first.');
    const fields = { reason: ban.reason, expiresAt, createdAt: new Date() };
    await tx.userBan.upsert({ where: { userId }, create: { userId, ...fields }, update: fields });
    await revokeAllTokens(tx, user);
    for (const step of endCredentialSteps) await step(tx, userId);
    await recordEvent(ctx, tx, { action: 'admin.user_banned', target: userRef(userId), metadata: { reason: ban.reason, until: expiresAt?.toISOString() ?? null } });
  });
}

/** Lifts a ban. What it ended stays ended: the user signs in again. */
export async function unbanUser(ctx: AppContext, userId: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.userBan.deleteMany({ where: { userId } });
    if (count > 0) await recordEvent(ctx, tx, { action: 'admin.user_unbanned', target: userRef(userId) });
  });
}
