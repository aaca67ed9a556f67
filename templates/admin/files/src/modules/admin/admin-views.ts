import type { Prisma } from '../../generated/prisma/client.js';
import { toPublicUser, type PublicUser } from '../auth/public-user.js';
import { banInForce } from './ban-check.js';

/** What a user row needs to be shown to an admin. */
export const adminUserInclude = {
  adminRole: { select: { userId: true } },
  ban: { select: { reason: true, expiresAt: true } },
} satisfies Prisma.UserInclude;

export type UserWithAdminState = Prisma.UserGetPayload<{ include: typeof adminUserInclude }>;

/** The user as an admin sees it: the user object plus role, ban and last sign-in. */
export interface AdminUser extends PublicUser {
  role: 'user' | 'admin';
  banned: boolean;
  banReason: string | null;
  banExpiresAt: string | null;
  lastSignInAt: string | null;
}

export function toAdminUser(user: UserWithAdminState, now = new Date()): AdminUser {
  const ban = user.ban && banInForce(user.ban, now) ? user.ban : null;
  return {
    ...toPublicUser(user),
    role: user.adminRole ? 'admin' : 'user',
    banned: ban !== null,
    banReason: ban?.reason ?? null,
    banExpiresAt: ban?.expiresAt?.toISOString() ?? null,
    lastSignInAt: user.lastSignInAt?.toISOString() ?? null,
  };
}
