import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import type { DeletionOptions } from './account-events.js';
import { deleteAccountSteps, endCredentialSteps } from './account-hooks.js';
import { recordEvent, userRef } from './events.js';
import { revokeAllTokens } from './revocation.js';

/**
 * Deletes the user and everything of theirs, in one transaction, or nothing when a module refuses.
 *
 * A deletion is a revocation first (revokeAllTokens): the security version rises, so a sign-in of
 * the user still running starts no session, every session ends and every one-time token (the
 * address's sign-up links included) is voided. The modules' credentials end (API keys), then each
 * module removes what it holds or refuses (an organization the user alone owns, with other members:
 * 409 SOLE_OWNER). The user's row goes last, and the database's cascades take every row that
 * belongs to it: sessions, credentials, identities, passkeys, two-factor secrets, memberships.
 * The address is then free: it can register again, as a new account.
 */
export async function deleteAccount(
  ctx: AppContext,
  user: Pick<User, 'id' | 'email'>,
  options: DeletionOptions,
  event: 'account.deleted' | 'admin.user_deleted' = 'account.deleted',
): Promise<void> {
  await ctx.prisma.$transaction(
    async (tx) => {
      await revokeAllTokens(tx, user);
      for (const step of endCredentialSteps) await step(tx, user.id);
      for (const step of deleteAccountSteps) await step(tx, user.id, ctx, options);
      await tx.user.delete({ where: { id: user.id } });
      await recordEvent(ctx, tx, { action: event, target: userRef(user.id) });
    },
    // A user in many organizations makes a longer transaction than a sign-in, and under load it
    // may wait for others to finish first (SQLite runs one at a time).
    { maxWait: 10_000, timeout: 20_000 },
  );
}
