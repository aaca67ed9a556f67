import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { currentAuth, requireAuth, revokeAllTokens } from './guard.js';
import { listProviders } from './providers.js';
import { toPublicUser } from './public-user.js';

/** The signed-in user, logout, and what sign-in methods this app offers. */
export function createSessionRoutes(ctx: AppContext): Router {
  const router = Router();
  const auth = requireAuth(ctx);

  router.get('/api/auth/me', auth, (_req, res) => {
    res.json({ user: toPublicUser(currentAuth(res).user) });
  });

  router.post('/api/auth/logout', auth, async (_req, res) => {
    await ctx.prisma.accessToken.update({ where: { id: currentAuth(res).tokenId }, data: { revokedAt: new Date() } });
    res.status(204).end();
  });

  router.post('/api/auth/logout-all', auth, async (_req, res) => {
    await revokeAllTokens(ctx, currentAuth(res).user.id);
    res.status(204).end();
  });

  router.get('/api/auth/providers', (_req, res) => {
    res.json(listProviders(ctx.config));
  });

  return router;
}
