import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { AppError } from '../../../http/app-error.js';
import { sendMail } from '../../../mail/outgoing-mail.js';

/**
 * Per account, 10 wrong codes within 15 minutes (over any number of mfa tokens and client
 * addresses; TOTP and recovery codes alike; at sign-in, turning two-factor off and new recovery
 * codes together) lock the account's code checks at all three for 15 minutes, and the owner is
 * told by mail. The lock does not depend on RATE_LIMIT_MAX.
 */
const MAX_WRONG_CODES = 10;
const WINDOW_MS = 15 * 60 * 1000;
const LOCK_MS = 15 * 60 * 1000;

const wrongCodesKey = (userId: string) => `2fa-wrong:${userId}`;
const lockKey = (userId: string) => `2fa-lock:${userId}`;

/** 429 while the account's code checks are locked, right code or not. */
export async function assertNotLocked(ctx: AppContext, userId: string): Promise<void> {
  const lock = await ctx.counters.peek(lockKey(userId));
  if (!lock) return;
  const retryAfter = Math.max(1, Math.ceil((lock.resetAt - Date.now()) / 1000));
  throw new AppError(429, 'RATE_LIMITED', `Too many wrong codes for this account. Try again in ${retryAfter} seconds.`, undefined, {
    'Retry-After': String(retryAfter),
  });
}

/** Counts a wrong code; the 10th locks the account's code checks and mails its owner. */
async function countWrongCode(ctx: AppContext, user: User): Promise<void> {
  const { count } = await ctx.counters.increment(wrongCodesKey(user.id), WINDOW_MS);
  if (count !== MAX_WRONG_CODES) return;
  await ctx.counters.increment(lockKey(user.id), LOCK_MS);
  ctx.logger.warn({ userId: user.id }, 'two-factor code checks locked after too many wrong codes');
  await sendMail(ctx, 'security-alert', {
    to: user.email,
    subject: 'Two-factor code checks on your account were paused',
    text:
      `Someone entered ${MAX_WRONG_CODES} wrong two-factor codes for your account within 15 minutes: at sign-in after the first step (your password, or a link mailed to you), or while signed in, to turn two-factor off or get new recovery codes.\n\n` +
      `Code checks for your account are paused for 15 minutes. If this was not you, someone may know your password, read your mail or hold one of your sessions: change your password (this signs every session out), and your mail password too.\n`,
  });
}

/** Runs a check of one of the account's codes; a wrong code (INVALID_CODE) counts towards the lock. */
export async function countingWrongCodes<Result>(ctx: AppContext, user: User, check: () => Promise<Result>): Promise<Result> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_CODE') await countWrongCode(ctx, user);
    throw error;
  }
}
