import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { logoutSteps } from './account-hooks.js';
import { currentAuth, requireAuth } from './guard.js';
import { listProviders } from './providers.js';
import { toPublicUser } from './public-user.js';
import { revokeAllTokens } from './revocation.js';

/** The signed-in user, logout, and what sign-in methods this app offers. */
export function createSessionRoutes(ctx: AppContext): Router {
  const router = Router();
  const auth = requireAuth(ctx);

  router.get('/api/auth/me', auth, (_req, res) => {
    res.json({ user: toPublicUser(currentAuth(res).user) });
  });

  router.post('/api/auth/logout', auth, async (_req, res) => {
    const { tokenId, user } = currentAuth(res);
    await ctx.prisma.accessToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
    // Modules end what they started for the user's sign-ins elsewhere (an exchanged Auth.js session).
    for (const step of logoutSteps) await step(ctx.prisma, user.id);
    res.status(204).end();
  });

  router.post('/api/auth/logout-all', auth, async (_req, res) => {
    await revokeAllTokens(ctx.prisma, currentAuth(res).user);
    res.status(204).end();
  });

  router.get('/api/auth/providers', (_req, res) => {
    res.json(listProviders(ctx.config));
  });

  return router;
}
