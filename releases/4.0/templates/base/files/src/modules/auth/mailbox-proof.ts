import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { takeOverSteps } from './account-hooks.js';
import { revokeAllTokens } from './revocation.js';

/**
 * Anyone can register someone else's address, so an account whose email is not verified is
 * provisional. The first proof of the mailbox through a sign-in (a magic link, a reset link, a
 * provider or hosted service that reports the address verified) takes it over for the prover:
 * every earlier token is revoked and whatever was set up before (password, second factor, linked
 * identities, memberships and the invites it sent) is removed, in one transaction, before the
 * email counts as verified.
 *
 * Every sign-in path that proves the mailbox calls this before completeLogin.
 */
export async function proveMailbox(ctx: AppContext, user: User): Promise<User> {
  if (user.emailVerified) return user;
  return ctx.prisma.$transaction(async (tx) => {
    // Revocation comes first: some of what it ends is found through rows the take-over removes
    // (the Auth.js sessions of the account's linked Auth.js identities).
    await revokeAllTokens(tx, user);
    for (const step of takeOverSteps) await step(tx, user.id, ctx);
    return tx.user.update({ where: { id: user.id }, data: { emailVerified: true, twoFactorEnabled: false } });
  });
}
