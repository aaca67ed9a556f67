import type { Request } from 'express';
import type { AppContext } from '../../../context.js';
import type { AuthjsUser } from '../../../generated/prisma/client.js';
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

/** The Auth.js user of the browser's session cookie, or undefined when there is none, or it ended. */
export async function sessionUser(ctx: AppContext, req: Request): Promise<AuthjsUser | undefined> {
  const sessionToken = cookieValue(req, sessionCookieName(ctx.config));
  if (!sessionToken) return undefined;
  const session = await ctx.prisma.authjsSession.findUnique({ where: { sessionTokenHash: hashSessionToken(sessionToken) }, include: { user: true } });
  return session && session.expires > new Date() ? session.user : undefined;
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

/**
 * Events that revoke every token of a user (logout-all, a password change or reset, two-factor
 * off) also end the Auth.js sessions of their Auth.js identities, so none can be exchanged again.
 */
export async function endAuthjsSessions(db: Db, userId: string): Promise<void> {
  const identities = await db.account.findMany({ where: { userId, provider: 'authjs' }, select: { providerAccountId: true } });
  if (identities.length === 0) return;
  await db.authjsSession.deleteMany({ where: { userId: { in: identities.map((identity) => identity.providerAccountId) } } });
}
