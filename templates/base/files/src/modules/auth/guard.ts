import type { RequestHandler, Response } from 'express';
import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { unauthenticated } from '../../http/app-error.js';
import { verifyAccessToken } from './access-tokens.js';

export interface Authentication {
  user: User;
  tokenId: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      auth?: Authentication;
    }
  }
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/**
 * The one guard. Accepts `Authorization: Bearer <jwt>` only: HS256, valid signature, not expired,
 * issued by this server as an access token, and not revoked.
 */
export function requireAuth(ctx: AppContext): RequestHandler {
  return async (req, res, next) => {
    const match = BEARER.exec(req.headers.authorization ?? '');
    if (!match) throw unauthenticated();
    const claims = await verifyAccessToken(ctx.config, match[1]!);
    if (!claims) throw unauthenticated('The token is invalid or expired.');
    const record = await ctx.prisma.accessToken.findUnique({ where: { id: claims.tokenId }, include: { user: true } });
    if (!record || record.revokedAt || record.userId !== claims.userId || record.expiresAt <= new Date()) {
      throw unauthenticated('The token is invalid, expired or revoked.');
    }
    res.locals.auth = { user: record.user, tokenId: record.id };
    next();
  };
}

/** The authenticated user of a route behind requireAuth. */
export function currentAuth(res: Response): Authentication {
  if (!res.locals.auth) throw unauthenticated();
  return res.locals.auth;
}

/** Revokes every token the user holds (password change or reset, logout-all, 2FA off). */
export async function revokeAllTokens(ctx: AppContext, userId: string): Promise<void> {
  await ctx.prisma.accessToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: new Date() } });
}
