import type { AppContext } from '../../context.js';
import { forbidden, unauthenticated } from '../../http/app-error.js';
import { signAccessToken } from '../auth/access-tokens.js';
import type { Client } from '../auth/account-events.js';
import type { SessionAuthentication } from '../auth/guard.js';
import { IMPERSONATION_METHOD } from '../auth/impersonators.js';
import { toPublicUser, type PublicUser } from '../auth/public-user.js';
import { recordEvent, userRef } from '../auth/events.js';
import { checkSessionAllowed } from '../auth/sessions.js';
import { isAdmin } from './admin-account.js';
import { userNotFound } from './admin-users.js';

/** A token response without a refresh token: an impersonation is never refreshed or extended. */
export interface ImpersonationTokens {
  token: string;
  tokenType: 'Bearer';
  /** Seconds until the impersonation ends: its token lives as long as it does. */
  expiresIn: number;
  user: PublicUser;
}

/**
 * An admin starts acting as a user: a new session of the user, of method impersonation, that
 * records the admin, the admin's own session and the reason. It ends after IMPERSONATION_MINUTES,
 * or with the admin's session if that ends first, and is never refreshed. Never an admin (nor
 * oneself), and never a banned user: a ban ends every session.
 */
export async function startImpersonation(ctx: AppContext, admin: SessionAuthentication, userId: string, reason: string, client: Client): Promise<ImpersonationTokens> {
  if (userId === admin.user.id) throw forbidden('You cannot impersonate yourself.');
  const now = new Date();
  const session = await ctx.prisma.$transaction(async (tx) => {
    // Writing the user's row first locks it on PostgreSQL, as a sign-in does (sessions.ts): a ban
    // landing now either waits for this session to exist and then ends it, or commits first and is
    // read below. SQLite runs one transaction at a time anyway.
    const { count } = await tx.user.updateMany({ where: { id: userId }, data: { updatedAt: now } });
    if (count !== 1) throw userNotFound();
    if (await isAdmin(tx, userId)) throw forbidden('An admin cannot be impersonated.');
    await checkSessionAllowed(tx, userId);
    const adminSession = await tx.session.findFirst({ where: { id: admin.sessionId, userId: admin.user.id, expiresAt: { gt: now } } });
    if (!adminSession) throw unauthenticated('Your session has ended.');
    const limit = new Date(now.getTime() + ctx.config.IMPERSONATION_MINUTES * 60_000);
    const endsAt = limit < adminSession.expiresAt ? limit : adminSession.expiresAt;
    const started = await tx.session.create({
      data: {
        userId,
        method: IMPERSONATION_METHOD,
        userAgent: client.userAgent,
        ip: client.ip,
        createdAt: now,
        lastUsedAt: now,
        expiresAt: endsAt,
        maxExpiresAt: endsAt,
        impersonation: { create: { adminId: admin.user.id, adminSessionId: adminSession.id, reason } },
      },
      include: { user: true },
    });
    await recordEvent(ctx, tx, { action: 'admin.impersonation_started', target: userRef(userId), metadata: { reason, sessionId: started.id } });
    return started;
  });
  const access = await signAccessToken(ctx, session, { actorId: admin.user.id, until: session.expiresAt });
  return { token: access.token, tokenType: 'Bearer', expiresIn: access.expiresIn, user: toPublicUser(session.user) };
}
