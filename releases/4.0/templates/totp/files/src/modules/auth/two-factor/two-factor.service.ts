import type { AppContext } from '../../../context.js';
import type { TwoFactorSecret, User } from '../../../generated/prisma/client.js';
import { AppError, forbidden, invalidToken } from '../../../http/app-error.js';
import { finishLogin, type TokenResponse } from '../complete-login.js';
import { toPublicUser, type PublicUser } from '../public-user.js';
import { revokeAllTokens } from '../revocation.js';
import type { Client } from '../sessions.js';
import { assertNotLocked, countingWrongCodes } from './code-lock.js';
import { challengeOwner, claimAttempt, finishChallenge, pendingStepOf } from './mfa-challenges.js';
import { replaceRecoveryCodes, useRecoveryCode } from './recovery-codes.js';
import { removeTwoFactor } from './remove-two-factor.js';
import { openSecret, sealSecret } from './secret-box.js';
import { enrollment, matchingTimeStep, newTotpSecret, type Enrollment } from './totp.js';

/** A code or a recovery code, as the client sent it. */
export interface SecondFactor {
  code?: string;
  recoveryCode?: string;
}

const invalidCode = () => new AppError(401, 'INVALID_CODE', 'The code is wrong, expired or already used.');
const alreadyOn = () => forbidden('Two-factor authentication is already on. Turn it off first to set up a new authenticator.');
const notOn = () => forbidden('Two-factor authentication is not on.');
const emailNotVerified = () =>
  new AppError(403, 'EMAIL_NOT_VERIFIED', 'Verify your email address before you turn on two-factor authentication.');

/**
 * Accepts a TOTP code once: its time step must be later than the last one accepted, and claiming
 * the step is a conditional update, so a code cannot be replayed, not even concurrently.
 */
async function acceptTotpCode(ctx: AppContext, record: TwoFactorSecret, code: string): Promise<void> {
  const secret = openSecret(ctx.config, record.userId, record.encryptedSecret);
  if (secret === undefined) {
    ctx.logger.error({ userId: record.userId }, 'cannot decrypt the TOTP secret: TOTP_ENCRYPTION_KEY or JWT_SECRET changed?');
    throw invalidCode();
  }
  const step = matchingTimeStep(secret, code);
  if (step === undefined) throw invalidCode();
  const { count } = await ctx.prisma.twoFactorSecret.updateMany({
    where: { userId: record.userId, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }] },
    data: { lastUsedStep: step },
  });
  if (count !== 1) throw invalidCode();
}

/** Checks the second factor of a user who has two-factor authentication on. */
async function acceptSecondFactor(ctx: AppContext, record: TwoFactorSecret, factor: SecondFactor): Promise<void> {
  if (factor.code !== undefined) return acceptTotpCode(ctx, record, factor.code);
  if (factor.recoveryCode === undefined || !(await useRecoveryCode(ctx, record.userId, factor.recoveryCode))) throw invalidCode();
}

async function enabledSecret(ctx: AppContext, user: User): Promise<TwoFactorSecret> {
  const record = await ctx.prisma.twoFactorSecret.findUnique({ where: { userId: user.id } });
  if (!user.twoFactorEnabled || !record?.enabledAt) throw notOn();
  return record;
}

/** A new secret, stored encrypted but not active until enable() sees a code from it. */
export async function setUp(ctx: AppContext, user: User): Promise<Enrollment> {
  if (!user.emailVerified) throw emailNotVerified();
  if (user.twoFactorEnabled) throw alreadyOn();
  const secret = newTotpSecret();
  const encryptedSecret = sealSecret(ctx.config, user.id, secret);
  await ctx.prisma.twoFactorSecret.upsert({
    where: { userId: user.id },
    create: { userId: user.id, encryptedSecret },
    update: { encryptedSecret, enabledAt: null },
  });
  return enrollment(secret, ctx.config.TOTP_ISSUER, user.email);
}

/** Turns two-factor authentication on once the user proves the app shows the right codes. */
export async function enable(ctx: AppContext, user: User, code: string): Promise<{ recoveryCodes: string[] }> {
  if (!user.emailVerified) throw emailNotVerified();
  if (user.twoFactorEnabled) throw alreadyOn();
  const record = await ctx.prisma.twoFactorSecret.findUnique({ where: { userId: user.id } });
  if (!record) throw forbidden('Call POST /api/auth/2fa/setup first.');
  await acceptTotpCode(ctx, record, code);
  await ctx.prisma.$transaction([
    ctx.prisma.twoFactorSecret.update({ where: { userId: user.id }, data: { enabledAt: new Date() } }),
    ctx.prisma.user.update({ where: { id: user.id }, data: { twoFactorEnabled: true } }),
  ]);
  return { recoveryCodes: await replaceRecoveryCodes(ctx, user.id) };
}

const expiredChallenge = () => invalidToken('The mfaToken is invalid, expired, already used or out of attempts. Sign in again.');

/**
 * The second step of a sign-in: the mfaToken from the first factor plus a code or a recovery
 * code. Every try counts against the token's attempts, the right one included, and every wrong
 * code against the account's lock. Work the first factor deferred (a reset's new password) runs
 * only now, and the session starts with the first factor's method.
 */
export async function verify(ctx: AppContext, input: SecondFactor & { mfaToken: string }, client: Client): Promise<TokenResponse> {
  const ownerId = await challengeOwner(ctx, input.mfaToken);
  if (!ownerId) throw expiredChallenge();
  await assertNotLocked(ctx, ownerId);
  const challenge = await claimAttempt(ctx, input.mfaToken);
  if (!challenge) throw expiredChallenge();
  const user = await ctx.prisma.user.findUnique({ where: { id: challenge.userId }, include: { twoFactorSecret: true } });
  if (!user?.twoFactorEnabled || !user.twoFactorSecret?.enabledAt) throw invalidToken('Two-factor authentication is no longer on. Sign in again.');
  const secret = user.twoFactorSecret;
  await countingWrongCodes(ctx, user, () => acceptSecondFactor(ctx, secret, input));
  if (!(await finishChallenge(ctx, challenge))) throw invalidToken('The mfaToken was already used. Sign in again.');
  return finishLogin(ctx, user, { ...client, method: challenge.method }, pendingStepOf(challenge));
}

/**
 * Turns two-factor authentication off and revokes every token of the user, the current one
 * included. Its code counts against the account's lock like a sign-in's: a stolen session cannot
 * guess codes here instead.
 */
export async function disable(ctx: AppContext, user: User, factor: SecondFactor): Promise<{ user: PublicUser }> {
  const secret = await enabledSecret(ctx, user);
  await assertNotLocked(ctx, user.id);
  await countingWrongCodes(ctx, user, () => acceptSecondFactor(ctx, secret, factor));
  const updated = await ctx.prisma.$transaction(async (tx) => {
    await removeTwoFactor(tx, user.id);
    await revokeAllTokens(tx, user);
    return tx.user.update({ where: { id: user.id }, data: { twoFactorEnabled: false } });
  });
  return { user: toPublicUser(updated) };
}

/** Ten new recovery codes; the old ones stop working. Its code counts against the account's lock too. */
export async function regenerateRecoveryCodes(ctx: AppContext, user: User, code: string): Promise<{ recoveryCodes: string[] }> {
  const secret = await enabledSecret(ctx, user);
  await assertNotLocked(ctx, user.id);
  await countingWrongCodes(ctx, user, () => acceptTotpCode(ctx, secret, code));
  return { recoveryCodes: await replaceRecoveryCodes(ctx, user.id) };
}
