import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import type { DeferredStep } from '../account-events.js';
import { recordEvent, userRef } from '../events.js';
import { revokeAllTokens } from '../revocation.js';

export const PASSWORD_RESET_STEP = 'password_reset';

/**
 * Stores a new password hash, revokes every earlier token and one-time link of the user, and
 * records the change or the reset; returns the user as the revocation left it.
 */
export function setPasswordHash(ctx: AppContext, user: User, passwordHash: string, event: 'password.changed' | 'password.reset'): Promise<User> {
  return ctx.prisma.$transaction(async (tx) => {
    await tx.passwordCredential.upsert({ where: { userId: user.id }, create: { userId: user.id, passwordHash }, update: { passwordHash } });
    const revoked = await revokeAllTokens(tx, user);
    await recordEvent(ctx, tx, { action: event, actor: userRef(user.id), target: userRef(user.id) });
    return revoked;
  });
}

/**
 * The new password of a reset, applied once every challenge of the sign-in is passed: a reset
 * link alone cannot change the password of an account with two-factor authentication.
 */
export const passwordResetStep: DeferredStep = {
  kind: PASSWORD_RESET_STEP,
  run: (ctx, user, passwordHash) => setPasswordHash(ctx, user, passwordHash, 'password.reset'),
};
