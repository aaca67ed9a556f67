import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Session } from '../../generated/prisma/client.js';
import { invalidToken, notFound } from '../../http/app-error.js';
import { validate } from '../../http/validate.js';
import { tokenResponse } from './complete-login.js';
import { currentAuth, requireAuth } from './guard.js';
import { listProviders } from './providers.js';
import { toPublicUser } from './public-user.js';
import { clearRefreshCookie, readRefreshCookie, sendLoginResult, wantsCookieTransport } from './refresh-transport.js';
import { revokeAllTokens } from './revocation.js';
import { endOtherSessions, endSession, liveSessions, rotateRefreshToken } from './sessions.js';

const refreshBody = z.object({ refreshToken: z.string({ error: 'refreshToken must be a string' }).trim().min(1).max(512).optional() });

const noRefreshToken = () =>
  invalidToken('No refresh token: send { "refreshToken" }, or the refresh cookie with the header Refresh-Token-Transport: cookie.');

/** A session as its owner sees it in the device list. */
function toDevice(session: Session, currentId: string) {
  return {
    id: session.id,
    createdAt: session.createdAt,
    lastUsedAt: session.lastUsedAt,
    expiresAt: session.expiresAt,
    method: session.method,
    userAgent: session.userAgent,
    ip: session.ip,
    current: session.id === currentId,
  };
}

/** The signed-in user, refresh, logout, the device list, and what sign-in methods this app offers. */
export function createSessionRoutes(ctx: AppContext): Router {
  const router = Router();
  const auth = requireAuth(ctx);

  router.get('/api/auth/me', auth, (_req, res) => {
    res.json({ user: toPublicUser(currentAuth(res).user) });
  });

  // The cookie counts only with the transport header: a cross-site form cannot send one.
  router.post('/api/auth/refresh', ctx.rateLimit('refresh'), async (req, res) => {
    const presented = validate(refreshBody, req.body).refreshToken ?? (wantsCookieTransport(req) ? readRefreshCookie(req) : undefined);
    if (!presented) throw noRefreshToken();
    const { session, user, ...refresh } = await rotateRefreshToken(ctx, presented);
    sendLoginResult(req, res, ctx.config, tokenResponse(ctx, session, user, refresh));
  });

  router.post('/api/auth/logout', auth, async (_req, res) => {
    const { sessionId, user } = currentAuth(res);
    await endSession(ctx, user.id, sessionId);
    clearRefreshCookie(res, ctx.config);
    res.status(204).end();
  });

  router.post('/api/auth/logout-all', auth, async (_req, res) => {
    await revokeAllTokens(ctx.prisma, currentAuth(res).user);
    clearRefreshCookie(res, ctx.config);
    res.status(204).end();
  });

  router.get('/api/auth/sessions', auth, async (_req, res) => {
    const { sessionId, user } = currentAuth(res);
    res.json({ sessions: (await liveSessions(ctx, user.id)).map((session) => toDevice(session, sessionId)) });
  });

  // Another user's session is answered exactly like one that does not exist.
  router.delete('/api/auth/sessions/:id', auth, async (req, res) => {
    if (!(await endSession(ctx, currentAuth(res).user.id, req.params.id as string))) throw notFound('No such session.');
    res.status(204).end();
  });

  router.post('/api/auth/sessions/revoke-others', auth, async (_req, res) => {
    const { sessionId, user } = currentAuth(res);
    await endOtherSessions(ctx, user.id, sessionId);
    res.status(204).end();
  });

  router.get('/api/auth/providers', (_req, res) => {
    res.json(listProviders(ctx.config));
  });

  return router;
}
