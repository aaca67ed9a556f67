import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { invalidToken } from '../../../http/app-error.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { sendMailShortly } from '../../../mail/outgoing-mail.js';
import type { SignIn } from '../account-events.js';
import { completeLogin, type LoginResult } from '../complete-login.js';
import { recordEvent, userRef } from '../events.js';
import { proveMailbox } from '../mailbox-proof.js';
import { consumeOneTimeToken, createOneTimeToken } from '../one-time-tokens.js';

const PURPOSE = 'magic_link';

/**
 * Mails a sign-in link when the address may sign in: an existing account, or any address while
 * sign-up by link is on. Runs after the answer, which is the same either way, and does the same
 * work either way, so a request sent right after cannot tell the two apart: an address that may
 * not sign in stores a token too (naming nobody, so it signs nobody in) and gets no mail, and the
 * mail itself goes out a moment later (sendMailShortly).
 */
export async function sendMagicLink(ctx: AppContext, email: string): Promise<void> {
  const user = await ctx.prisma.user.findUnique({ where: { email } });
  const maySignIn = user !== null || ctx.config.MAGIC_LINK_SIGNUP;
  const minutes = ctx.config.MAGIC_LINK_EXPIRY_MINUTES;
  const token = await createOneTimeToken(ctx, { purpose: PURPOSE, userId: user?.id, email: maySignIn ? email : undefined, ttlSeconds: minutes * 60 });
  if (!maySignIn) return;
  const link = `${ctx.config.APP_URL}/magic-link?token=${token}`;
  const validity = minutes === 1 ? '1 minute' : `${minutes} minutes`;
  sendMailShortly(ctx, 'sign-in-link', {
    to: email,
    subject: 'Your sign-in link',
    text: `To sign in, open this link within ${validity}:\n\n${link}\n\nThe link works once. If you did not ask for it, ignore this mail.\n`,
  });
}

/**
 * The account the link was sent to (as read before the link was used up), created on first
 * sign-in. The link proves the mailbox, so an account whose email was not verified yet is taken
 * over by the prover (see mailbox-proof.ts).
 */
async function userForLink(ctx: AppContext, email: string, existing: User | null): Promise<User | undefined> {
  if (existing) return proveMailbox(ctx, existing);
  if (!ctx.config.MAGIC_LINK_SIGNUP) return undefined;
  try {
    return await ctx.prisma.$transaction(async (tx) => {
      const created = await tx.user.create({ data: { email, emailVerified: true } });
      await recordEvent(ctx, tx, { action: 'auth.registered', actor: userRef(created.id), target: userRef(created.id), metadata: { method: 'magic_link' } });
      return created;
    });
  } catch (error) {
    // Two first links of the same address, opened at the same moment: the other one created it.
    if (!isUniqueViolation(error)) throw error;
    return proveMailbox(ctx, await ctx.prisma.user.findUniqueOrThrow({ where: { email } }));
  }
}

/** Consumes the link's token (once, even under concurrent requests) and signs the user in. */
export async function verifyMagicLink(ctx: AppContext, token: string, signIn: SignIn): Promise<LoginResult> {
  const record = await consumeOneTimeToken(ctx, PURPOSE, token);
  const user = record?.email ? await userForLink(ctx, record.email, record.user) : undefined;
  if (!user) throw invalidToken('The sign-in link is invalid, expired or already used.');
  return completeLogin(ctx, user, signIn);
}
