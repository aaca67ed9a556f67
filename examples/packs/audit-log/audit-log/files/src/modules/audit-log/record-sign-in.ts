import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';

/** Records a sign-in once the first factor is passed; never asks for anything more. */
export async function recordSignIn(ctx: AppContext, user: User): Promise<undefined> {
  await ctx.prisma.auditEvent.create({ data: { userId: user.id, action: 'sign-in' } });
  return undefined;
}
