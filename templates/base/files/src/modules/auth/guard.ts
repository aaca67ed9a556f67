import type { RequestHandler, Response } from 'express';
import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { AppError, unauthenticated } from '../../http/app-error.js';
import { verifyAccessToken } from './access-tokens.js';

export interface Authentication {
  user: User;
  tokenId: string;
  issuedAt: Date;
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
   * Security changes (two-factor, linked identities) need a token issued within
   * REAUTH_MAX_AGE_MINUTES: a stolen older token cannot lock the owner out.
   */
  recentSignIn?: boolean;
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/**
 * The user, provided the token is one of theirs, recorded, unexpired and not revoked: one indexed
 * read on every request, so a revocation takes effect at once, on every instance.
 */
function findUserWithLiveToken(ctx: AppContext, userId: string, tokenId: string): Promise<User | null> {
  return ctx.prisma.user.findFirst({
    where: { id: userId, accessTokens: { some: { id: tokenId, revokedAt: null, expiresAt: { gt: new Date() } } } },
  });
}

const reauthRequired = () =>
  new AppError(403, 'REAUTH_REQUIRED', 'This change needs a recent sign-in. Sign in again, then retry.');

/**
 * The one guard. Accepts `Authorization: Bearer <jwt>` only: HS256, valid signature, not expired,
 * issued by this server as an access token, and not revoked.
 */
export function requireAuth(ctx: AppContext, options: GuardOptions = {}): RequestHandler {
  const maxAgeMs = ctx.config.REAUTH_MAX_AGE_MINUTES * 60_000;
  return async (req, res, next) => {
    const match = BEARER.exec(req.headers.authorization ?? '');
    if (!match) throw unauthenticated();
    const claims = verifyAccessToken(ctx.config, match[1]!);
    if (!claims) throw unauthenticated('The token is invalid or expired.');
    const user = await findUserWithLiveToken(ctx, claims.userId, claims.tokenId);
    if (!user) throw unauthenticated('The token is invalid, expired or revoked.');
    if (options.recentSignIn && Date.now() - claims.issuedAt.getTime() > maxAgeMs) throw reauthRequired();
    res.locals.auth = { user, tokenId: claims.tokenId, issuedAt: claims.issuedAt };
    next();
  };
}

/** The authenticated user of a route behind requireAuth. */
export function currentAuth(res: Response): Authentication {
  if (!res.locals.auth) throw unauthenticated();
  return res.locals.auth;
}
