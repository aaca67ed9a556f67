import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import { validate } from '../../http/validate.js';
import { deleteAccount } from './account-deletion.js';
import { exportAccount } from './account-export.js';
import { recordEventAlone, userRef } from './events.js';
import { currentAuth, requireAuth } from './guard.js';
import { clearRefreshCookie } from './refresh-transport.js';

const deleteBody = z.object({
  confirm: z.string({ error: 'confirm must be your email address' }).trim().max(320, 'confirm is too long to be an email address'),
});

const notConfirmed = () =>
  new AppError(400, 'VALIDATION_ERROR', 'Type the email address of this account to confirm its deletion.', [
    { path: 'confirm', message: "must be the account's email address" },
  ]);

/** Leaving: deleting one's account, and taking a copy of one's data first. */
export function createAccountRoutes(ctx: AppContext): Router {
  const router = Router();
  // The owner's own acts: a recent sign-in (a stolen old token cannot), and never an impersonation.
  const owner = requireAuth(ctx, { recentSignIn: true, noImpersonation: true });

  router.delete('/api/auth/account', owner, async (req, res) => {
    const { user } = currentAuth(res);
    if (validate(deleteBody, req.body).confirm.toLowerCase() !== user.email) throw notConfirmed();
    await deleteAccount(ctx, user, { deleteSoleOwnedOrganizations: false });
    clearRefreshCookie(res, ctx.config);
    res.status(204).end();
  });

  router.get('/api/auth/account/export', owner, async (_req, res) => {
    const { user } = currentAuth(res);
    const account = await exportAccount(ctx, user);
    // Nothing changes, so the event is recorded on its own, before the answer goes out.
    await recordEventAlone(ctx, { action: 'account.exported', target: userRef(user.id) });
    res.attachment(`account-${new Date().toISOString().slice(0, 10)}.json`).json(account);
  });

  return router;
}
