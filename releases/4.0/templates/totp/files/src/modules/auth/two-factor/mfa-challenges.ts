import type { AppContext } from '../../../context.js';
import type { TwoFactorChallenge, User } from '../../../generated/prisma/client.js';
import { secondFactorChecks, type Db } from '../account-hooks.js';
import type { LoginChallenge, PendingStep } from '../complete-login.js';
import { hashToken, randomToken } from '../one-time-tokens.js';
import type { SignIn } from '../sessions.js';

/** An mfaToken lives 10 minutes and allows 5 codes to be tried with it. */
const CHALLENGE_TTL_MS = 10 * 60 * 1000;
export const MAX_ATTEMPTS = 5;

/**
 * Runs after every first factor (see complete-login.ts). A user with two-factor authentication on
 * gets an mfaToken instead of an access token. The mfaToken is an opaque random string, not a JWT,
 * so the guard can never accept it; only its hash is stored, with how the first factor signed in
 * and the work it deferred until the second one succeeds (a reset's new password). Its methods
 * are a code, a recovery code, and the other second factors the user has (a passkey).
 */
export async function requireSecondFactor(ctx: AppContext, user: User, signIn: SignIn, pending?: PendingStep): Promise<LoginChallenge | undefined> {
  if (!user.twoFactorEnabled) return undefined;
  const mfaToken = randomToken();
  const now = new Date();
  await ctx.prisma.$transaction([
    ctx.prisma.twoFactorChallenge.deleteMany({ where: { userId: user.id, expiresAt: { lt: now } } }),
    ctx.prisma.twoFactorChallenge.create({
      data: {
        userId: user.id,
        tokenHash: hashToken(mfaToken),
        expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
        method: signIn.method,
        pendingStep: pending ? JSON.stringify(pending) : null,
      },
    }),
  ]);
  const others = await Promise.all(secondFactorChecks.map((check) => check(ctx.prisma, user.id)));
  return { mfaRequired: true, mfaToken, methods: ['totp', 'recovery_code', ...others.flat()] };
}

/** The deferred work stored with a challenge, if any. */
export function pendingStepOf(challenge: TwoFactorChallenge): PendingStep | undefined {
  return challenge.pendingStep ? (JSON.parse(challenge.pendingStep) as PendingStep) : undefined;
}

/** The user an mfaToken belongs to, while it is still usable; it counts no attempt. */
export async function challengeOwner(ctx: AppContext, mfaToken: string): Promise<string | undefined> {
  const challenge = await ctx.prisma.twoFactorChallenge.findUnique({ where: { tokenHash: hashToken(mfaToken) }, select: { userId: true } });
  return challenge?.userId;
}

/**
 * Counts one attempt against the mfaToken and returns its challenge, or undefined when the token
 * is unknown, expired, already used or out of attempts. The conditional update keeps the count
 * exact under concurrent requests.
 */
export async function claimAttempt(ctx: AppContext, mfaToken: string): Promise<TwoFactorChallenge | undefined> {
  const tokenHash = hashToken(mfaToken);
  const { count } = await ctx.prisma.twoFactorChallenge.updateMany({
    where: { tokenHash, usedAt: null, expiresAt: { gt: new Date() }, attempts: { lt: MAX_ATTEMPTS } },
    data: { attempts: { increment: 1 } },
  });
  if (count !== 1) return undefined;
  return (await ctx.prisma.twoFactorChallenge.findUnique({ where: { tokenHash } })) ?? undefined;
}

/** Marks the challenge passed; false when another request already passed it. */
export async function finishChallenge(ctx: AppContext, challenge: TwoFactorChallenge): Promise<boolean> {
  const { count } = await ctx.prisma.twoFactorChallenge.updateMany({
    where: { id: challenge.id, usedAt: null },
    data: { usedAt: new Date() },
  });
  return count === 1;
}

/** When every token of a user is revoked, their pending mfa tokens die too. */
export async function voidChallenges(db: Db, userId: string): Promise<void> {
  await db.twoFactorChallenge.deleteMany({ where: { userId } });
}
