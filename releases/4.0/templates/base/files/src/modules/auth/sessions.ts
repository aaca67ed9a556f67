import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { Session, User } from '../../generated/prisma/client.js';
import { invalidToken } from '../../http/app-error.js';
import { isMissingRecord } from '../../http/database-errors.js';
import { logoutSteps } from './account-hooks.js';
import { hashToken, randomToken } from './one-time-tokens.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const USER_AGENT_MAX = 256;

/** Where a request comes from, as a session records it. */
export interface Client {
  userAgent: string | null;
  /** The client's address, by the TRUST_PROXY rules (Express's req.ip). */
  ip: string | null;
}

/** How a sign-in happened and from where. */
export interface SignIn extends Client {
  /** password, magic_link, passkey, or the provider or service id. */
  method: string;
}

export function clientOf(req: Request): Client {
  return { userAgent: req.get('user-agent')?.slice(0, USER_AGENT_MAX) || null, ip: req.ip ?? null };
}

/** The sign-in of `method` that `req` is completing. */
export function signInFrom(req: Request, method: string): SignIn {
  return { method, ...clientOf(req) };
}

export interface IssuedRefreshToken {
  refreshToken: string;
  /** Seconds until the refresh token expires: the earlier of the idle and the absolute end. */
  refreshExpiresIn: number;
}

/** A new refresh token, expiring with its session: the token, and what to store (only its hash). */
function newRefreshToken(expiresAt: Date): { issued: IssuedRefreshToken; row: { tokenHash: string; expiresAt: Date } } {
  const refreshToken = randomToken();
  const refreshExpiresIn = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  return { issued: { refreshToken, refreshExpiresIn }, row: { tokenHash: hashToken(refreshToken), expiresAt } };
}

/** The idle end of a session used now, capped by its absolute end. */
function nextExpiry(ctx: AppContext, now: Date, maxExpiresAt: Date): Date {
  const idle = new Date(now.getTime() + ctx.config.SESSION_IDLE_DAYS * DAY_MS);
  return idle < maxExpiresAt ? idle : maxExpiresAt;
}

/** Starts a session for a completed sign-in, with its first refresh token. */
export async function startSession(ctx: AppContext, user: User, signIn: SignIn): Promise<{ session: Session } & IssuedRefreshToken> {
  const now = new Date();
  const maxExpiresAt = new Date(now.getTime() + ctx.config.SESSION_MAX_DAYS * DAY_MS);
  const expiresAt = nextExpiry(ctx, now, maxExpiresAt);
  const refresh = newRefreshToken(expiresAt);
  const session = await ctx.prisma.session.create({
    data: {
      userId: user.id,
      method: signIn.method,
      userAgent: signIn.userAgent,
      ip: signIn.ip,
      createdAt: now,
      lastUsedAt: now,
      expiresAt,
      maxExpiresAt,
      refreshTokens: { create: refresh.row },
    },
  });
  return { session, ...refresh.issued };
}

const refreshRefused = () => invalidToken('The refresh token is invalid, expired, already used or revoked. Sign in again.');

/**
 * Uses a refresh token up and issues the session's next one. Using it up is a conditional update
 * of a token not yet used: of any number of concurrent refreshes with one token exactly one wins.
 *
 * A token used up more than REFRESH_REUSE_GRACE_SECONDS ago that comes back was copied: whoever
 * holds it is not the client that refreshed, so the whole session ends. Within the grace it is
 * most likely the same client refreshing twice at once (two tabs), which gets a plain 401.
 */
export async function rotateRefreshToken(ctx: AppContext, presented: string): Promise<{ session: Session; user: User } & IssuedRefreshToken> {
  const now = new Date();
  const record = await ctx.prisma.refreshToken.findUnique({ where: { tokenHash: hashToken(presented) }, include: { session: { include: { user: true } } } });
  if (!record || record.expiresAt <= now || record.session.expiresAt <= now) throw refreshRefused();
  if (record.rotatedAt) {
    if (now.getTime() - record.rotatedAt.getTime() > ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000) {
      await endSession(ctx, record.session.userId, record.sessionId);
      ctx.logger.warn({ userId: record.session.userId, sessionId: record.sessionId }, 'a used refresh token came back: the session is ended');
    }
    throw refreshRefused();
  }
  const { count } = await ctx.prisma.refreshToken.updateMany({ where: { id: record.id, rotatedAt: null }, data: { rotatedAt: now } });
  if (count !== 1) throw refreshRefused();
  const expiresAt = nextExpiry(ctx, now, record.session.maxExpiresAt);
  const refresh = newRefreshToken(expiresAt);
  try {
    // One write: the session's idle end moves and it gets its next token, provided it still lives
    // (a logout elsewhere since the read leaves no session to update, and nothing is issued).
    await ctx.prisma.session.update({
      where: { id: record.sessionId, expiresAt: { gt: now } },
      data: { lastUsedAt: now, expiresAt, refreshTokens: { create: refresh.row } },
      select: { id: true },
    });
  } catch (error) {
    if (isMissingRecord(error)) throw refreshRefused();
    throw error;
  }
  return { session: { ...record.session, lastUsedAt: now, expiresAt }, user: record.session.user, ...refresh.issued };
}

/** The user's live sessions, newest sign-in first. */
export function liveSessions(ctx: AppContext, userId: string): Promise<Session[]> {
  return ctx.prisma.session.findMany({ where: { userId, expiresAt: { gt: new Date() } }, orderBy: { createdAt: 'desc' } });
}

/**
 * Ends one of the user's sessions: its refresh tokens go with it and its access tokens fail the
 * guard from the next request on. False when the user has no such session.
 */
export async function endSession(ctx: AppContext, userId: string, sessionId: string): Promise<boolean> {
  const { count } = await ctx.prisma.session.deleteMany({ where: { id: sessionId, userId } });
  if (count !== 1) return false;
  // Modules end what they started for the user's sign-ins elsewhere (an exchanged Auth.js session).
  for (const step of logoutSteps) await step(ctx.prisma, userId);
  return true;
}

/** Ends every session of the user but `keep` (the one asking). */
export async function endOtherSessions(ctx: AppContext, userId: string, keep: string): Promise<void> {
  await ctx.prisma.session.deleteMany({ where: { userId, id: { not: keep } } });
  for (const step of logoutSteps) await step(ctx.prisma, userId);
}
