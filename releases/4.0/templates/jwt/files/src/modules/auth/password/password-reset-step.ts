import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import type { DeferredStep } from '../account-hooks.js';
import { revokeAllTokens } from '../revocation.js';

export const PASSWORD_RESET_STEP = 'password_reset';

/** Stores a new password hash and revokes every earlier token and one-time link of the user. */
export async function setPasswordHash(ctx: AppContext, user: User, passwordHash: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    await tx.passwordCredential.upsert({ where: { userId: user.id }, create: { userId: user.id, passwordHash }, update: { passwordHash } });
    await revokeAllTokens(tx, user);
  });
}

/**
 * The new password of a reset, applied once every challenge of the sign-in is passed: a reset
 * link alone cannot change the password of an account with two-factor authentication.
 */
export const passwordResetStep: DeferredStep = {
  kind: PASSWORD_RESET_STEP,
  run: (ctx, user, passwordHash) => setPasswordHash(ctx, user, passwordHash),
};
