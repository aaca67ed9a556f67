import { Router, type Request } from 'express';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../http/app-error.js';
import { currentAuth, requireAuth } from '../guard.js';
import { recordEvent, userRef } from '../events.js';
import { removeSignInMethod } from '../sign-in-methods.js';
import { toIdentityView } from './identity-store.js';

/** The caller's linked identities, and unlinking one (never the last way to sign in). */
export function createIdentityRoutes(ctx: AppContext): Router {
  const router = Router();
  const auth = requireAuth(ctx);

  router.get('/api/auth/identities', auth, async (_req, res) => {
    const accounts = await ctx.prisma.account.findMany({ where: { userId: currentAuth(res).user.id }, orderBy: { createdAt: 'asc' } });
    res.json({ identities: accounts.map(toIdentityView) });
  });

  // Unlinking is a security change: it needs a recent sign-in, and never an impersonation. It never
  // removes the last way in.
  router.delete('/api/auth/identities/:id', requireAuth(ctx, { recentSignIn: true, noImpersonation: true }), async (req: Request, res) => {
    const userId = currentAuth(res).user.id;
    const id = String(req.params.id);
    await removeSignInMethod(ctx, userId, async (db) => {
      const identity = await db.account.findFirst({ where: { id, userId }, select: { provider: true } });
      if (!identity) throw notFound('Identity not found.');
      await db.account.delete({ where: { id } });
      await recordEvent(ctx, db, { action: 'identity.unlinked', target: userRef(userId), metadata: { provider: identity.provider, identityId: id } });
    });
    res.status(204).end();
  });

  return router;
}
