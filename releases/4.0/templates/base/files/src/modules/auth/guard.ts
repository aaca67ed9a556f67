import type { RequestHandler, Response } from 'express';
import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { AppError, unauthenticated } from '../../http/app-error.js';
import { verifyAccessToken } from './access-tokens.js';

export interface Authentication {
  user: User;
  /** The session the access token belongs to (its sid). */
  sessionId: string;
  /** The session's sign-in, which refreshes do not move. */
  signedInAt: Date;
}

declare global {
  namespace Express {
    interface Locals {
      auth?: Authentication;
    }
  }
}

export interface GuardOptions {
  /**
   * Security changes (two-factor, linked identities) need a session that signed in within
   * REAUTH_MAX_AGE_MINUTES (refreshing does not count): a stolen session cannot lock the owner out.
   */
  recentSignIn?: boolean;
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/**
 * The user, provided the token's session is one of theirs and still lives: one indexed read on
 * every request, so ending a session takes effect at once, on every instance.
 */
function findUserWithLiveSession(ctx: AppContext, userId: string, sessionId: string): Promise<User | null> {
  return ctx.prisma.user.findFirst({
    where: { id: userId, sessions: { some: { id: sessionId, expiresAt: { gt: new Date() } } } },
  });
}

const reauthRequired = () =>
  new AppError(403, 'REAUTH_REQUIRED', 'This change needs a recent sign-in. Sign in again, then retry.');

/**
 * The one guard. Accepts `Authorization: Bearer <jwt>` only: HS256, valid signature, not expired,
 * issued by this server as an access token, and its session not ended.
 */
export function requireAuth(ctx: AppContext, options: GuardOptions = {}): RequestHandler {
  const maxAgeMs = ctx.config.REAUTH_MAX_AGE_MINUTES * 60_000;
  return async (req, res, next) => {
    const match = BEARER.exec(req.headers.authorization ?? '');
    if (!match) throw unauthenticated();
    const claims = verifyAccessToken(ctx.config, match[1]!);
    if (!claims) throw unauthenticated('The token is invalid or expired.');
    const user = await findUserWithLiveSession(ctx, claims.userId, claims.sessionId);
    if (!user) throw unauthenticated('The token is invalid, expired or revoked.');
    if (options.recentSignIn && Date.now() - claims.signedInAt.getTime() > maxAgeMs) throw reauthRequired();
    res.locals.auth = { user, sessionId: claims.sessionId, signedInAt: claims.signedInAt };
    next();
  };
}

/** The authenticated user of a route behind requireAuth. */
export function currentAuth(res: Response): Authentication {
  if (!res.locals.auth) throw unauthenticated();
  return res.locals.auth;
}
