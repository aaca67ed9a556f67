import type { AppContext } from '../../context.js';
import { notFound } from '../../http/app-error.js';
import { accountSections } from '../auth/account-export.js';
import { viewSessions, type SessionView } from '../auth/session-view.js';
import { liveSessions } from '../auth/sessions.js';
import { adminUserInclude, toAdminUser, type AdminUser, type UserWithAdminState } from './admin-views.js';

export const userNotFound = () => notFound('No such user.');

/** The user with their role and ban, or 404. */
export async function findUserForAdmin(ctx: AppContext, userId: string): Promise<UserWithAdminState> {
  const user = await ctx.prisma.user.findUnique({ where: { id: userId }, include: adminUserInclude });
  if (!user) throw userNotFound();
  return user;
}

export interface UserDetail {
  user: AdminUser;
  sessions: SessionView[];
  /** How the user signs in: the account export's signInMethods (never a hash, secret or token). */
  methods: Record<string, unknown>;
  organizations: unknown[];
}

/** Everything an admin sees of one user: the user, their live sessions, sign-in methods and organizations. */
export async function userDetail(ctx: AppContext, userId: string): Promise<UserDetail> {
  const user = await findUserForAdmin(ctx, userId);
  const { signInMethods, organizations } = await accountSections(ctx, userId);
  return {
    user: toAdminUser(user),
    sessions: await viewSessions(ctx.prisma, await liveSessions(ctx, userId)),
    methods: signInMethods,
    organizations: Array.isArray(organizations) ? organizations : [],
  };
}
