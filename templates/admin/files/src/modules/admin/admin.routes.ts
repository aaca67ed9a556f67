import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/app-error.js';
import { validate } from '../../http/validate.js';
import { deleteAccount } from '../auth/account-deletion.js';
import { currentAuth, requireAuth } from '../auth/guard.js';
import { recordEvent, userRef } from '../auth/events.js';
import { revokeAllTokens } from '../auth/revocation.js';
import { clientOf } from '../../http/request-context.js';
import { endSession } from '../auth/sessions.js';
import { isAdmin } from './admin-account.js';
import { requireAdmin } from './admin-guard.js';
import { setRole } from './admin-roles.js';
import { findUserForAdmin, userDetail } from './admin-users.js';
import { toAdminUser } from './admin-views.js';
import { banUser, unbanUser } from './bans.js';
import { banBody, deleteUserBody, impersonateBody, roleBody, userSearchQuery } from './admin.schemas.js';
import { startImpersonation } from './impersonation.js';
import { searchUsers } from './user-search.js';

const userId = (req: Request) => String(req.params.id);

/** The operators' API: find users, ban and unban them, end their sessions, set roles, impersonate, delete. */
export function createAdminRoutes(ctx: AppContext): Router {
  const router = Router();
  const admin = requireAdmin(ctx);
  const recentAdmin = requireAdmin(ctx, { recentSignIn: true });
  const answerUser = async (res: Response, id: string) => {
    res.json({ user: toAdminUser(await findUserForAdmin(ctx, id)) });
  };

  router.get('/api/admin/users', ...admin, async (req, res) => {
    res.json(await searchUsers(ctx.prisma, validate(userSearchQuery, req.query)));
  });

  router.get('/api/admin/users/:id', ...admin, async (req, res) => {
    res.json(await userDetail(ctx, userId(req)));
  });

  router.post('/api/admin/users/:id/ban', ...admin, async (req, res) => {
    await banUser(ctx, currentAuth(res).user.id, userId(req), validate(banBody, req.body));
    await answerUser(res, userId(req));
  });

  router.post('/api/admin/users/:id/unban', ...admin, async (req, res) => {
    await findUserForAdmin(ctx, userId(req));
    await unbanUser(ctx, userId(req));
    await answerUser(res, userId(req));
  });

  // Every session of the user ends, as with their own "sign out everywhere".
  router.delete('/api/admin/users/:id/sessions', ...admin, async (req, res) => {
    const user = await findUserForAdmin(ctx, userId(req));
    await ctx.prisma.$transaction(async (tx) => {
      await revokeAllTokens(tx, user);
      await recordEvent(ctx, tx, { action: 'admin.sessions_ended', target: userRef(user.id) });
    });
    res.status(204).end();
  });

  router.put('/api/admin/users/:id/role', ...recentAdmin, async (req, res) => {
    const { role } = validate(roleBody, req.body);
    await findUserForAdmin(ctx, userId(req));
    await setRole(ctx, userId(req), role, currentAuth(res).user.id);
    await answerUser(res, userId(req));
  });

  // A token response without a refresh token, sent in the body only (no refresh cookie).
  router.post('/api/admin/users/:id/impersonate', ...recentAdmin, async (req, res) => {
    const { reason } = validate(impersonateBody, req.body);
    res.json(await startImpersonation(ctx, currentAuth(res), userId(req), reason, clientOf(req)));
  });

  // Called by the impersonation session itself, the one thing it may do under /api/admin.
  router.post('/api/admin/impersonation/stop', requireAuth(ctx), async (_req, res) => {
    const { user, sessionId, impersonatedBy } = currentAuth(res);
    if (!impersonatedBy) throw forbidden('Only an impersonation session stops itself; sign out to end your own session.');
    await endSession(ctx, user.id, sessionId, 'admin.impersonation_stopped');
    res.status(204).end();
  });

  router.delete('/api/admin/users/:id', ...recentAdmin, async (req, res) => {
    const { deleteSoleOwnedOrganizations = false } = validate(deleteUserBody, req.body);
    const target = await findUserForAdmin(ctx, userId(req));
    if (target.id === currentAuth(res).user.id) throw forbidden('Delete your own account with DELETE /api/auth/account.');
    if (await isAdmin(ctx.prisma, target.id)) throw forbidden('An admin cannot be deleted: take the role away first.');
    await deleteAccount(ctx, target, { deleteSoleOwnedOrganizations }, 'admin.user_deleted');
    res.status(204).end();
  });

  return router;
}
