import { Router, type Request } from 'express';
import type { AppContext } from '../../../context.js';
import { AppError, notFound } from '../../../http/app-error.js';
import { signInMethodChecks } from '../account-hooks.js';
import { currentAuth, requireAuth } from '../guard.js';
import { toIdentityView } from './identity-store.js';

const lastSignInMethod = () =>
  new AppError(409, 'LAST_SIGN_IN_METHOD', 'This is your only way to sign in. Add another (a password or another provider) before you remove it.');

/** The caller's linked identities, and unlinking one (never the last way to sign in). */
export function createIdentityRoutes(ctx: AppContext): Router {
  const router = Router();
  const auth = requireAuth(ctx);

  router.get('/api/auth/identities', auth, async (_req, res) => {
    const accounts = await ctx.prisma.account.findMany({ where: { userId: currentAuth(res).user.id }, orderBy: { createdAt: 'asc' } });
    res.json({ identities: accounts.map(toIdentityView) });
  });

  // Unlinking is a security change: it needs a recent sign-in. Without a password or another
  // method, the delete itself requires another identity, so two unlinks at once cannot both win.
  router.delete('/api/auth/identities/:id', requireAuth(ctx, { recentSignIn: true }), async (req: Request, res) => {
    const userId = currentAuth(res).user.id;
    const id = String(req.params.id);
    if (!(await ctx.prisma.account.findFirst({ where: { id, userId } }))) throw notFound('Identity not found.');
    const otherMethods = await Promise.all(signInMethodChecks.map((check) => check(ctx.prisma, userId)));
    const anotherIdentity = { user: { accounts: { some: { id: { not: id } } } } };
    const { count } = await ctx.prisma.account.deleteMany({ where: { id, userId, ...(otherMethods.some(Boolean) ? {} : anotherIdentity) } });
    if (count === 0) throw lastSignInMethod();
    res.status(204).end();
  });

  return router;
}
