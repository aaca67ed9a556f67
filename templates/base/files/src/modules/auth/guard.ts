import type { RequestHandler, Response } from 'express';
import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { AppError, unauthenticated } from '../../http/app-error.js';
import { setCaller } from '../../http/request-context.js';
import { verifyAccessToken } from './access-tokens.js';
import type { Impersonator, KeyCaller } from './account-events.js';
import { bearerKeyChecks } from './account-hooks.js';
import { findImpersonator, impersonationForbidden } from './impersonators.js';

/** A request signed in with an access token. */
export interface SessionAuthentication {
  via: 'session';
  user: User;
  /** The session the access token belongs to (its sid). */
  sessionId: string;
  /** The session's sign-in, which refreshes do not move. */
  signedInAt: Date;
  /** The admin acting as the user, when this is an impersonation session. */
  impersonatedBy?: Impersonator;
}

/** A request made with an API key, on a route that takes one. */
export interface KeyAuthentication extends KeyCaller {
  via: 'apiKey';
}

export type Authentication = SessionAuthentication | KeyAuthentication;

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
  /**
   * The route also takes an API key that holds this scope (profile:read, orgs:read…). Without it,
   * a key gets 403 SESSION_REQUIRED: account and key management need a person signed in.
   */
  apiKeyScope?: string;
  /** The route acts on a user (GET /api/auth/me): an organization's key, which has none, gets 403 SESSION_REQUIRED. */
  apiKeyNeedsUser?: boolean;
  /**
   * Security changes, the account's deletion and export, and the operators' API refuse an
   * impersonation session (403 IMPERSONATION_FORBIDDEN): an admin acting as a user sees what the
   * user sees, and can do less than the user can.
   */
  noImpersonation?: boolean;
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const BEARER = /^Bearer (\S+)$/i;

/**
 * The user, provided the token's session is one of theirs and still lives: one indexed read on
 * every request, so ending a session takes effect at once, on every instance.
 */
function findUserWithLiveSession(ctx: AppContext, userId: string, sessionId: string): Promise<User | null> {
  return ctx.prisma.user.findFirst({
    where: { id: userId, sessions: { some: { id: sessionId, expiresAt: { gt: new Date() } } } },
  });
}

export const sessionRequired = () =>
  new AppError(403, 'SESSION_REQUIRED', 'This route needs a signed-in person: API keys are not accepted here.');

const insufficientScope = (scope: string) =>
  new AppError(403, 'INSUFFICIENT_SCOPE', `This API key lacks the scope ${scope}.`, [{ path: 'scope', message: `${scope} is required` }]);

const reauthRequired = () =>
  new AppError(403, 'REAUTH_REQUIRED', 'This change needs a recent sign-in. Sign in again, then retry.');

/**
 * The one guard. Accepts `Authorization: Bearer <token>` only. An access token: JWT_ALGORITHM,
 * valid signature, not expired, issued by this server as an access token, and its session not
 * ended. The token of an impersonation session (it names its admin) also needs the admin's own
 * session alive and the admin still an admin: one more read, for those tokens only. An API key, on
 * a route that names a scope: a key a module recognises (bearerKeys hook), holding it.
 */
export function requireAuth(ctx: AppContext, options: GuardOptions = {}): RequestHandler {
  const maxAgeMs = ctx.config.REAUTH_MAX_AGE_MINUTES * 60_000;
  const sessionOf = async (token: string): Promise<SessionAuthentication> => {
    const claims = await verifyAccessToken(ctx, token);
    if (!claims) throw unauthenticated('The token is invalid or expired.');
    const user = await findUserWithLiveSession(ctx, claims.userId, claims.sessionId);
    if (!user) throw unauthenticated('The token is invalid, expired or revoked.');
    let impersonatedBy: Impersonator | undefined;
    if (claims.actorId) {
      impersonatedBy = (await findImpersonator(ctx.prisma, claims.sessionId)) ?? undefined;
      if (impersonatedBy?.id !== claims.actorId) throw unauthenticated('The impersonation has ended.');
      if (options.noImpersonation) throw impersonationForbidden();
    }
    if (options.recentSignIn && Date.now() - claims.signedInAt.getTime() > maxAgeMs) throw reauthRequired();
    return { via: 'session', user, sessionId: claims.sessionId, signedInAt: claims.signedInAt, ...(impersonatedBy ? { impersonatedBy } : {}) };
  };
  const keyOf = async (token: string): Promise<KeyAuthentication> => {
    const caller = await callerOfKey(ctx, token);
    if (!caller) throw unauthenticated('The token is invalid, expired or revoked.');
    if (options.apiKeyScope === undefined || (options.apiKeyNeedsUser && !caller.user)) throw sessionRequired();
    if (!caller.key.scopes.includes(options.apiKeyScope)) throw insufficientScope(options.apiKeyScope);
    return { via: 'apiKey', ...caller };
  };
  return async (req, res, next) => {
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (!token) throw unauthenticated();
    const auth = JWT.test(token) ? await sessionOf(token) : await keyOf(token);
    res.locals.auth = auth;
    // Who the request's account events name as their actor (request-context.ts).
    if (auth.via === 'apiKey') setCaller({ type: 'apiKey', id: auth.key.id });
    else setCaller(auth.impersonatedBy ? { type: 'admin', id: auth.impersonatedBy.id } : { type: 'user', id: auth.user.id });
    next();
  };
}

/** Who an API key acts as, when a module recognises it as one of its usable keys. */
async function callerOfKey(ctx: AppContext, token: string): Promise<KeyCaller | null> {
  for (const check of bearerKeyChecks) {
    const caller = await check(ctx, token);
    if (caller !== undefined) return caller;
  }
  return null;
}

/** The signed-in session of a route behind requireAuth (which takes no API key unless it names a scope). */
export function currentAuth(res: Response): SessionAuthentication {
  const auth = res.locals.auth;
  if (!auth) throw unauthenticated();
  if (auth.via !== 'session') throw sessionRequired();
  return auth;
}

/** Whoever is calling a route behind requireAuth with an apiKeyScope: a session or an API key. */
export function currentCaller(res: Response): Authentication {
  if (!res.locals.auth) throw unauthenticated();
  return res.locals.auth;
}
