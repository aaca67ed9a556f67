import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { Session, User } from '../../generated/prisma/client.js';
import { AppError, invalidToken } from '../../http/app-error.js';
import { isMissingRecord } from '../../http/database-errors.js';
import { clientOf } from '../../http/request-context.js';
import type { Db, SignIn } from './account-events.js';
import { logoutSteps, sessionChecks } from './account-hooks.js';
import { recordEvent, userRef } from './events.js';
import { hashToken, randomToken } from './one-time-tokens.js';

const DAY_MS = 24 * 60 * 60 * 1000;

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

/**
 * What a sign-in answers when a revocation of its user happened while it ran: what it would have
 * answered after that revocation. A password or a passkey then no longer signs in (its challenge or
 * the password itself is gone), and a mailed link, a code or an mfa token was voided with it.
 */
function overtakenByRevocation(signIn: SignIn): AppError {
  if (!signIn.secondFactor && (signIn.method === 'password' || signIn.method === 'passkey')) {
    return new AppError(401, 'INVALID_CREDENTIALS', 'The sign-in could not be completed: this account was signed out everywhere meanwhile. Sign in again.');
  }
  return invalidToken('The sign-in could not be completed: this account was signed out everywhere meanwhile. Sign in again.');
}

/** Throws when a module refuses the user a session: a banned user gets 403 ACCOUNT_BANNED. */
export async function checkSessionAllowed(db: Db, userId: string): Promise<void> {
  for (const check of sessionChecks) await check(db, userId);
}

/**
 * Starts a session for a completed sign-in, with its first refresh token.
 *
 * `user` is the account as the sign-in's first factor read it. The session starts only while the
 * user's securityVersion is still that one: a password change, logout-all, take-over or ban that
 * happened while the sign-in ran (a bcrypt check takes a quarter of a second) raised it, and the
 * sign-in is refused. The conditional update and the new session are one transaction: on
 * PostgreSQL the update locks the user's row, so a revocation either waits for the session to
 * exist and then ends it, or comes first and this update matches nothing.
 */
export async function startSession(ctx: AppContext, user: User, signIn: SignIn): Promise<{ session: Session } & IssuedRefreshToken> {
  const now = new Date();
  const maxExpiresAt = new Date(now.getTime() + ctx.config.SESSION_MAX_DAYS * DAY_MS);
  const expiresAt = nextExpiry(ctx, now, maxExpiresAt);
  const refresh = newRefreshToken(expiresAt);
  const session = await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.user.updateMany({ where: { id: user.id, securityVersion: user.securityVersion }, data: { lastSignInAt: now } });
    // Read after that update (which waits for a revocation holding the row): a ban that landed
    // while the sign-in ran answers as after the ban, 403 ACCOUNT_BANNED.
    await checkSessionAllowed(tx, user.id);
    if (count !== 1) throw overtakenByRevocation(signIn);
    const created = await tx.session.create({
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
    await recordEvent(ctx, tx, {
      action: 'auth.signed_in',
      actor: userRef(user.id),
      target: userRef(user.id),
      client: signIn,
      metadata: { method: signIn.method, secondFactor: signIn.secondFactor ?? null, sessionId: created.id },
    });
    return created;
  });
  return { session, ...refresh.issued };
}

const refreshRefused = () => invalidToken('The refresh token is invalid, expired, already used or revoked. Sign in again.');

/**
 * Uses a refresh token up and issues the session's next one; `admit` may refuse the session's
 * refresh before anything changes (its rate limit). Using it up is a conditional update
 * of a token not yet used: of any number of concurrent refreshes with one token exactly one wins.
 *
 * A token used up more than REFRESH_REUSE_GRACE_SECONDS ago that comes back was copied: whoever
 * holds it is not the client that refreshed, so the whole session ends. Within the grace it is
 * most likely the same client refreshing twice at once (two tabs), which gets a plain 401.
 */
export async function rotateRefreshToken(
  ctx: AppContext,
  presented: string,
  admit: (sessionId: string) => Promise<void> = async () => {},
): Promise<{ session: Session; user: User } & IssuedRefreshToken> {
  const now = new Date();
  const record = await ctx.prisma.refreshToken.findUnique({ where: { tokenHash: hashToken(presented) }, include: { session: { include: { user: true } } } });
  if (!record || record.expiresAt <= now || record.session.expiresAt <= now) throw refreshRefused();
  if (record.rotatedAt) {
    if (now.getTime() - record.rotatedAt.getTime() > ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000) {
      await endSession(ctx, record.session.userId, record.sessionId, 'session.refresh_reuse_detected');
      ctx.logger.warn({ userId: record.session.userId, sessionId: record.sessionId }, 'a used refresh token came back: the session is ended');
    }
    throw refreshRefused();
  }
  // A ban ends every session of the user; this refuses any that would still be refreshed.
  await checkSessionAllowed(ctx.prisma, record.session.userId);
  // The session's refresh budget is counted before anything is used up (refresh-budget.ts).
  await admit(record.sessionId);
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

/** The events ending a session records: a logout, an ending from the device list, a stolen token's reuse, the end of an impersonation. */
export type SessionEnd = 'auth.signed_out' | 'session.ended' | 'session.refresh_reuse_detected' | 'admin.impersonation_stopped';

/**
 * Ends one of the user's sessions: its refresh tokens go with it and its access tokens fail the
 * guard from the next request on. False when the user has no such session.
 */
export function endSession(ctx: AppContext, userId: string, sessionId: string, event: SessionEnd = 'session.ended'): Promise<boolean> {
  return ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.session.deleteMany({ where: { id: sessionId, userId } });
    if (count !== 1) return false;
    // Modules end what they started for the user's sign-ins elsewhere (an exchanged Auth.js session).
    for (const step of logoutSteps) await step(tx, userId);
    await recordEvent(ctx, tx, { action: event, target: userRef(userId), metadata: { sessionId } });
    return true;
  });
}

/** Ends every session of the user but `keep` (the one asking). */
export async function endOtherSessions(ctx: AppContext, userId: string, keep: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.session.deleteMany({ where: { userId, id: { not: keep } } });
    for (const step of logoutSteps) await step(tx, userId);
    await recordEvent(ctx, tx, { action: 'session.ended', target: userRef(userId), metadata: { otherSessions: count } });
  });
}
