import type { RequestHandler } from 'express';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/app-error.js';
import { setCaller } from '../../http/request-context.js';
import { currentAuth, requireAuth } from '../auth/guard.js';
import { isAdmin } from './admin-account.js';

/**
 * The operators' API: an admin's own session (never an impersonation, 403 IMPERSONATION_FORBIDDEN),
 * and the role read from the database on every request, so taking it away takes effect at once,
 * on every instance. `recentSignIn` for the weightiest changes (role, impersonation, deletion).
 */
export function requireAdmin(ctx: AppContext, options: { recentSignIn?: boolean } = {}): RequestHandler[] {
  const checkRole: RequestHandler = async (_req, res, next) => {
    const { user } = currentAuth(res);
    if (!(await isAdmin(ctx.prisma, user.id))) throw forbidden('Only an admin can do this.');
    // Account events of the operators' API name an admin as their actor.
    setCaller({ type: 'admin', id: user.id });
    next();
  };
  return [requireAuth(ctx, { ...options, noImpersonation: true }), checkRole];
}
