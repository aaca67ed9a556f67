import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import type { Db } from './account-events.js';
import { signInMethodChecks } from './account-hooks.js';
import { lockUser } from './user-lock.js';

export const lastSignInMethod = () =>
  new AppError(409, 'LAST_SIGN_IN_METHOD', 'This is your only way to sign in. Add another (a password, a passkey or a provider) before you remove it.');

/** Whether the user still has a way to sign in: a password, mailed links, a passkey, a linked identity. */
async function hasWayIn(db: Db, userId: string): Promise<boolean> {
  for (const check of signInMethodChecks) if (await check(db, userId)) return true;
  return false;
}

/**
 * Removes one of the user's ways to sign in (`remove` deletes it), never the last one: when none
 * is left, the transaction rolls back with 409 LAST_SIGN_IN_METHOD. Removals of one user run one
 * after the other (lockUser), so two at the same moment (a passkey and an identity) cannot each
 * count the other as the way that is left.
 */
export async function removeSignInMethod(ctx: AppContext, userId: string, remove: (db: Db) => Promise<void>): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    await lockUser(tx, userId);
    await remove(tx);
    if (!(await hasWayIn(tx, userId))) throw lastSignInMethod();
  });
}
