import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { exportSections } from './account-hooks.js';
import { toPublicUser } from './public-user.js';
import { viewSessions } from './session-view.js';
import { liveSessions } from './sessions.js';

/**
 * What the modules hold about the user, section by section: how the user signs in (each sign-in
 * module adds its entry to `signInMethods`), organizations and roles, API keys…
 */
export async function accountSections(ctx: AppContext, userId: string): Promise<{ signInMethods: Record<string, unknown> } & Record<string, unknown>> {
  const sections: { signInMethods: Record<string, unknown> } & Record<string, unknown> = { signInMethods: {} };
  for (const section of exportSections) {
    for (const [key, value] of Object.entries(await section(ctx.prisma, userId))) {
      sections[key] = key === 'signInMethods' ? { ...sections.signInMethods, ...(value as object) } : value;
    }
  }
  return sections;
}

/**
 * Everything the app holds about the user, as one JSON document: the profile, the live sessions
 * and each module's section. Every field is chosen one by one, so no hash, secret or token slips
 * in with a new column.
 */
export async function exportAccount(ctx: AppContext, user: User): Promise<Record<string, unknown>> {
  return {
    exportedAt: new Date().toISOString(),
    user: { ...toPublicUser(user), lastSignInAt: user.lastSignInAt?.toISOString() ?? null, updatedAt: user.updatedAt.toISOString() },
    sessions: await viewSessions(ctx.prisma, await liveSessions(ctx, user.id)),
    ...(await accountSections(ctx, user.id)),
  };
}
