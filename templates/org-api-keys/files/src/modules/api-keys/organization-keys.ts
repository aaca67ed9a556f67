import type { AppContext } from '../../context.js';
import type { Db, KeyCaller } from '../auth/account-events.js';
import { hashKey, isWellFormed, KEY_PREFIXES } from './key-format.js';
import { limitKeyRate, noteKeyUse } from './key-use.js';

/**
 * The guard's check of an organization key (bearerKeys hook): one indexed read of the key, by its
 * hash. It acts in its organization with its role and has no user; the organization's deletion
 * deletes it (a cascade), so a key that is found has its organization.
 */
export async function organizationKeyCaller(ctx: AppContext, key: string): Promise<KeyCaller | null | undefined> {
  if (!key.startsWith(KEY_PREFIXES.organization)) return undefined;
  if (!isWellFormed(key, 'organization')) return null;
  const found = await ctx.prisma.organizationApiKey.findUnique({ where: { keyHash: hashKey(key) } });
  if (!found || (found.expiresAt && found.expiresAt <= new Date())) return null;
  await limitKeyRate(ctx, found.id);
  await noteKeyUse(found.lastUsedAt, (notBefore, now) =>
    ctx.prisma.organizationApiKey.updateMany({
      where: { id: found.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: notBefore } }] },
      data: { lastUsedAt: now },
    }),
  );
  return { key: { id: found.id, name: found.name, scopes: found.scopes.split(' ') }, user: null, organization: { id: found.organizationId, role: found.role } };
}

/**
 * A mailbox proof takes a provisional account over: organization keys it made before may be a
 * squatter's way back into those organizations, so they go too.
 */
export async function removeKeysMadeBy(db: Db, userId: string): Promise<void> {
  await db.organizationApiKey.deleteMany({ where: { createdById: userId } });
}
