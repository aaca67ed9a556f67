import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { invalidToken } from '../../../http/app-error.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { sendMail } from '../../../mail/outgoing-mail.js';
import { completeLogin, type LoginResult } from '../complete-login.js';
import type { SignIn } from '../sessions.js';
import { proveMailbox } from '../mailbox-proof.js';
import { consumeOneTimeToken, createOneTimeToken } from '../one-time-tokens.js';

const PURPOSE = 'magic_link';

/**
 * Mails a sign-in link when the address may sign in: an existing account, or any address while
 * sign-up by link is on. Runs after the answer, which is the same either way.
 */
export async function sendMagicLink(ctx: AppContext, email: string): Promise<void> {
  const user = await ctx.prisma.user.findUnique({ where: { email } });
  if (!user && !ctx.config.MAGIC_LINK_SIGNUP) return;
  const minutes = ctx.config.MAGIC_LINK_EXPIRY_MINUTES;
  const token = await createOneTimeToken(ctx, { purpose: PURPOSE, userId: user?.id, email, ttlSeconds: minutes * 60 });
  const link = `${ctx.config.APP_URL}/magic-link?token=${token}`;
  const validity = minutes === 1 ? '1 minute' : `${minutes} minutes`;
  await sendMail(ctx, 'sign-in-link', {
    to: email,
    subject: 'Your sign-in link',
    text: `To sign in, open this link within ${validity}:\n\n${link}\n\nThe link works once. If you did not ask for it, ignore this mail.\n`,
  });
}

/**
 * The account the link was sent to, created on first sign-in. The link proves the mailbox, so an
 * account whose email was not verified yet is taken over by the prover (see mailbox-proof.ts).
 */
async function userForLink(ctx: AppContext, email: string): Promise<User | undefined> {
  const existing = await ctx.prisma.user.findUnique({ where: { email } });
  if (existing) return proveMailbox(ctx, existing);
  if (!ctx.config.MAGIC_LINK_SIGNUP) return undefined;
  try {
    return await ctx.prisma.user.create({ data: { email, emailVerified: true } });
  } catch (error) {
    // Two first links of the same address, opened at the same moment: the other one created it.
    if (!isUniqueViolation(error)) throw error;
    return proveMailbox(ctx, await ctx.prisma.user.findUniqueOrThrow({ where: { email } }));
  }
}

/** Consumes the link's token (once, even under concurrent requests) and signs the user in. */
export async function verifyMagicLink(ctx: AppContext, token: string, signIn: SignIn): Promise<LoginResult> {
  const record = await consumeOneTimeToken(ctx, PURPOSE, token);
  const user = record?.email ? await userForLink(ctx, record.email) : undefined;
  if (!user) throw invalidToken('The sign-in link is invalid, expired or already used.');
  return completeLogin(ctx, user, signIn);
}
