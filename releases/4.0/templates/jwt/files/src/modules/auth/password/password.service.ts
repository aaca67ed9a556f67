import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { AppError, invalidToken } from '../../../http/app-error.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { sendMail } from '../../../mail/outgoing-mail.js';
import { completeLogin, issueTokenResponse, type LoginResult, type TokenResponse } from '../complete-login.js';
import { proveMailbox } from '../mailbox-proof.js';
import type { SignIn } from '../sessions.js';
import { consumeOneTimeToken, createOneTimeToken } from '../one-time-tokens.js';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './password-hasher.js';
import { setPasswordHash, PASSWORD_RESET_STEP } from './password-reset-step.js';

const RESET_PURPOSE = 'password_reset';
const RESET_TTL_SECONDS = 30 * 60;
const VERIFY_PURPOSE = 'email_verification';
const VERIFY_TTL_SECONDS = 24 * 60 * 60;

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'Email or password is incorrect.');

/**
 * A new account with a password. Its email is not verified, so the account stays provisional
 * until its owner proves the mailbox (see mailbox-proof.ts).
 */
export async function register(
  ctx: AppContext,
  input: { email: string; password: string; name?: string | null },
  signIn: SignIn,
): Promise<TokenResponse> {
  const passwordHash = await hashPassword(input.password, ctx.config.BCRYPT_COST);
  let user: User;
  try {
    user = await ctx.prisma.user.create({
      data: { email: input.email, name: input.name ?? null, passwordCredential: { create: { passwordHash } } },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError(409, 'EMAIL_TAKEN', 'An account with this email already exists.');
    throw error;
  }
  return issueTokenResponse(ctx, user, signIn);
}

/** Same answer and about the same time for an unknown email and a wrong password. */
export async function login(ctx: AppContext, input: { email: string; password: string }, signIn: SignIn): Promise<LoginResult> {
  const user = await ctx.prisma.user.findUnique({ where: { email: input.email }, include: { passwordCredential: true } });
  const valid = user?.passwordCredential
    ? await verifyPassword(input.password, user.passwordCredential.passwordHash)
    : await verifyAgainstDummy(input.password, ctx.config.BCRYPT_COST);
  if (!user || !valid) throw invalidCredentials();
  return completeLogin(ctx, user, signIn);
}

/**
 * Checks the current password, stores the new one, ends every session of the user and starts a
 * new one for the caller (it counts as a fresh sign-in).
 */
export async function changePassword(
  ctx: AppContext,
  user: User,
  input: { currentPassword: string; newPassword: string },
  signIn: SignIn,
): Promise<TokenResponse> {
  const credential = await ctx.prisma.passwordCredential.findUnique({ where: { userId: user.id } });
  const valid = credential
    ? await verifyPassword(input.currentPassword, credential.passwordHash)
    : await verifyAgainstDummy(input.currentPassword, ctx.config.BCRYPT_COST);
  if (!valid) throw invalidCredentials();
  await setPasswordHash(ctx, user, await hashPassword(input.newPassword, ctx.config.BCRYPT_COST));
  return issueTokenResponse(ctx, user, signIn);
}

/** Mails a reset link when the account exists. Runs after the answer, which is the same either way. */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<void> {
  const user = await ctx.prisma.user.findUnique({ where: { email } });
  if (!user) return;
  const token = await createOneTimeToken(ctx, { purpose: RESET_PURPOSE, userId: user.id, ttlSeconds: RESET_TTL_SECONDS });
  const link = `${ctx.config.APP_URL}/reset-password?token=${token}`;
  await sendMail(ctx, 'password-reset', {
    to: user.email,
    subject: 'Reset your password',
    text: `Someone asked to reset the password of your account.\n\nTo choose a new password, open this link within 30 minutes:\n\n${link}\n\nIf it was not you, ignore this mail; your password stays as it is.\n`,
  });
}

/**
 * Sets a new password from a mailed token. The link proves the mailbox, so a provisional account
 * is taken over first. The new password (and the revocation of every earlier token) waits until
 * the user passes their second factor, if they have one.
 */
export async function resetPassword(ctx: AppContext, input: { token: string; password: string }, signIn: SignIn): Promise<LoginResult> {
  // Hashed first: if hashing is busy (503), the link still works for a retry.
  const passwordHash = await hashPassword(input.password, ctx.config.BCRYPT_COST);
  const record = await consumeOneTimeToken(ctx, RESET_PURPOSE, input.token);
  const owner = record?.userId ? await ctx.prisma.user.findUnique({ where: { id: record.userId } }) : null;
  if (!owner) throw invalidToken('The reset link is invalid, expired or already used.');
  const user = await proveMailbox(ctx, owner);
  return completeLogin(ctx, user, signIn, { kind: PASSWORD_RESET_STEP, data: passwordHash });
}

export async function sendEmailVerification(ctx: AppContext, user: User): Promise<void> {
  if (user.emailVerified) return;
  const token = await createOneTimeToken(ctx, { purpose: VERIFY_PURPOSE, userId: user.id, ttlSeconds: VERIFY_TTL_SECONDS });
  const link = `${ctx.config.APP_URL}/verify-email?token=${token}`;
  await sendMail(ctx, 'email-verification', {
    to: user.email,
    subject: 'Confirm your email address',
    text: `Please confirm your email address by opening this link within 24 hours, in the browser where you are signed in:\n\n${link}\n\nIf you did not create an account, ignore this mail.\n`,
  });
}

/** Verifies the caller's own address: a token mailed to another account is not accepted. */
export async function verifyEmail(ctx: AppContext, user: User, token: string): Promise<User> {
  const record = await consumeOneTimeToken(ctx, VERIFY_PURPOSE, token, { userId: user.id });
  if (!record) throw invalidToken('The verification link is invalid, expired, already used or not for this account.');
  return ctx.prisma.user.update({ where: { id: user.id }, data: { emailVerified: true } });
}
