import type { Request } from 'express';
import type { AppContext } from '../../../context.js';
import type { AuthjsSession, AuthjsUser } from '../../../generated/prisma/client.js';
import type { Db } from '../account-hooks.js';
import { displayNameOf, imageOf, plainEmail } from '../identities/profile-fields.js';
import type { HostedProfile } from '../hosted/hosted-sign-in.js';
import { hashSessionToken } from './authjs-adapter.js';
import { sessionCookieName } from './authjs-options.js';

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** The Auth.js session of the browser's cookie, with its user, or undefined when there is none, or it ended. */
export async function browserSession(ctx: AppContext, req: Request): Promise<(AuthjsSession & { user: AuthjsUser }) | undefined> {
  const sessionToken = cookieValue(req, sessionCookieName(ctx.config));
  if (!sessionToken) return undefined;
  const session = await ctx.prisma.authjsSession.findUnique({ where: { sessionTokenHash: hashSessionToken(sessionToken) }, include: { user: true } });
  return session && session.expires > new Date() ? session : undefined;
}

/** Marks the session as exchanged (the first time), before the exchange signs anyone in. */
export async function markExchanged(ctx: AppContext, session: AuthjsSession): Promise<void> {
  if (session.exchangedAt) return;
  await ctx.prisma.authjsSession.updateMany({ where: { id: session.id }, data: { exchangedAt: new Date() } });
}

/**
 * An Auth.js user as an identity: its id is the account id, and the address counts as verified
 * once Auth.js verified it (its `emailVerified` date is set by its email sign-in; Auth.js leaves it
 * empty for OAuth providers).
 */
export function profileOf(user: AuthjsUser): HostedProfile {
  return {
    providerAccountId: user.id,
    email: plainEmail(user.email),
    emailVerified: user.emailVerified !== null,
    name: displayNameOf(user.name),
    image: imageOf(user.image),
  };
}

/** The Auth.js user ids of the user's linked Auth.js identities. */
async function authjsUserIds(db: Db, userId: string): Promise<string[]> {
  const identities = await db.account.findMany({ where: { userId, provider: 'authjs' }, select: { providerAccountId: true } });
  return identities.map((identity) => identity.providerAccountId);
}

/**
 * Events that revoke every token of a user (logout-all, a password change or reset, two-factor
 * off, a take-over) also end the Auth.js sessions of their Auth.js identities, so none can be
 * exchanged again.
 */
export async function endAuthjsSessions(db: Db, userId: string): Promise<void> {
  const ids = await authjsUserIds(db, userId);
  if (ids.length === 0) return;
  await db.authjsSession.deleteMany({ where: { userId: { in: ids } } });
}

/**
 * Logging out ends the Auth.js sessions of the user that were exchanged, so the browser that
 * signed in through Auth.js cannot exchange its session again and be signed back in. The app's
 * tokens do not record which sign-in they came from, so this ends every exchanged Auth.js session
 * of the user, whichever of the user's tokens logs out; an Auth.js session not yet exchanged stays.
 */
export async function endExchangedAuthjsSessions(db: Db, userId: string): Promise<void> {
  const ids = await authjsUserIds(db, userId);
  if (ids.length === 0) return;
  await db.authjsSession.deleteMany({ where: { userId: { in: ids }, exchangedAt: { not: null } } });
}
