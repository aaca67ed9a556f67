import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { invalidToken, notFound } from '../../http/app-error.js';
import { validate } from '../../http/validate.js';
import { tokenResponse } from './complete-login.js';
import { currentAuth, currentCaller, requireAuth, sessionRequired } from './guard.js';
import { listProviders } from './providers.js';
import { toPublicUser } from './public-user.js';
import { clearRefreshCookie, readRefreshCookie, sendLoginResult, wantsCookieTransport } from './refresh-transport.js';
import { recordEvent, userRef } from './events.js';
import { revokeAllTokens } from './revocation.js';
import { admitSessionRefresh, countingRefusedRefreshes } from './refresh-budget.js';
import { viewSessions } from './session-view.js';
import { endOtherSessions, endSession, liveSessions, rotateRefreshToken } from './sessions.js';

const refreshBody = z.object({
  refreshToken: z
    .string({ error: 'refreshToken must be a string' })
    .trim()
    .min(1, 'refreshToken is empty')
    .max(512, 'refreshToken is too long to be a refresh token (they have 43 characters)')
    .optional(),
});

const noRefreshToken = () =>
  invalidToken('No refresh token: send { "refreshToken" }, or the refresh cookie with the header Refresh-Token-Transport: cookie.');

/** The signed-in user, refresh, logout, the device list, and what sign-in methods this app offers. */
export function createSessionRoutes(ctx: AppContext): Router {
  const router = Router();
  const auth = requireAuth(ctx);
  // Ending other sessions is a security change an impersonation session cannot make; ending itself it can.
  const ownerAuth = requireAuth(ctx, { noImpersonation: true });

  // A user's API key with profile:read may read its user; an organization's key has none. An
  // impersonation session also names its admin, so a front end can show a banner.
  router.get('/api/auth/me', requireAuth(ctx, { apiKeyScope: 'profile:read', apiKeyNeedsUser: true }), (_req, res) => {
    const caller = currentCaller(res);
    if (!caller.user) throw sessionRequired();
    const impersonatedBy = caller.via === 'session' ? caller.impersonatedBy : undefined;
    res.json({ user: toPublicUser(caller.user), ...(impersonatedBy ? { impersonatedBy } : {}) });
  });

  // The cookie counts only with the transport header: a cross-site form cannot send one.
  // Limited per session when it succeeds and per client address when refused (refresh-budget.ts).
  router.post('/api/auth/refresh', async (req, res) => {
    const { session, user, ...refresh } = await countingRefusedRefreshes(ctx, req, () => {
      const presented = validate(refreshBody, req.body).refreshToken ?? (wantsCookieTransport(req) ? readRefreshCookie(req, ctx.config) : undefined);
      if (!presented) throw noRefreshToken();
      return rotateRefreshToken(ctx, presented, (sessionId) => admitSessionRefresh(ctx, sessionId));
    });
    sendLoginResult(req, res, ctx.config, await tokenResponse(ctx, session, user, refresh));
  });

  router.post('/api/auth/logout', auth, async (_req, res) => {
    const { sessionId, user } = currentAuth(res);
    await endSession(ctx, user.id, sessionId, 'auth.signed_out');
    clearRefreshCookie(res, ctx.config);
    res.status(204).end();
  });

  router.post('/api/auth/logout-all', ownerAuth, async (_req, res) => {
    const { user } = currentAuth(res);
    await ctx.prisma.$transaction(async (tx) => {
      await revokeAllTokens(tx, user);
      await recordEvent(ctx, tx, { action: 'auth.signed_out', target: userRef(user.id), metadata: { everywhere: true } });
    });
    clearRefreshCookie(res, ctx.config);
    res.status(204).end();
  });

  router.get('/api/auth/sessions', auth, async (_req, res) => {
    const { sessionId, user } = currentAuth(res);
    const sessions = await viewSessions(ctx.prisma, await liveSessions(ctx, user.id));
    res.json({ sessions: sessions.map((session) => ({ ...session, current: session.id === sessionId })) });
  });

  // Another user's session is answered exactly like one that does not exist.
  router.delete('/api/auth/sessions/:id', ownerAuth, async (req, res) => {
    if (!(await endSession(ctx, currentAuth(res).user.id, req.params.id as string))) throw notFound('No such session.');
    res.status(204).end();
  });

  router.post('/api/auth/sessions/revoke-others', ownerAuth, async (_req, res) => {
    const { sessionId, user } = currentAuth(res);
    await endOtherSessions(ctx, user.id, sessionId);
    res.status(204).end();
  });

  router.get('/api/auth/providers', (_req, res) => {
    res.json(listProviders(ctx.config));
  });

  return router;
}
