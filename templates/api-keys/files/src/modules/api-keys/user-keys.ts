import type { AppContext } from '../../context.js';
import type { Db, KeyCaller } from '../auth/account-events.js';
import { toApiKeyView, type ApiKeyView } from './api-key-views.js';
import { hashKey, isWellFormed, KEY_PREFIXES } from './key-format.js';
import { limitKeyRate, noteKeyUse } from './key-use.js';

/**
 * The guard's check of a user key (bearerKeys hook): one indexed read of the key, by its hash,
 * with its user. The key acts as that user with its scopes. A deleted or expired key, or one whose
 * user is gone, is no key: the read happens on every request, so that holds at once on every
 * instance.
 */
export async function userKeyCaller(ctx: AppContext, key: string): Promise<KeyCaller | null | undefined> {
  if (!key.startsWith(KEY_PREFIXES.user)) return undefined;
  if (!isWellFormed(key, 'user')) return null;
  const found = await ctx.prisma.apiKey.findUnique({ where: { keyHash: hashKey(key) }, include: { user: true } });
  if (!found || (found.expiresAt && found.expiresAt <= new Date())) return null;
  await limitKeyRate(ctx, found.id);
  await noteKeyUse(found.lastUsedAt, (notBefore, now) =>
    ctx.prisma.apiKey.updateMany({ where: { id: found.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: notBefore } }] }, data: { lastUsedAt: now } }),
  );
  return { key: { id: found.id, name: found.name, scopes: found.scopes.split(' ') }, user: found.user, organization: null };
}

/**
 * A mailbox proof takes a provisional account over (keys made before it may be a squatter's), and a
 * ban or a deletion ends the user's keys for good: each deletes them all.
 */
export async function removeUserKeys(db: Db, userId: string): Promise<void> {
  await db.apiKey.deleteMany({ where: { userId } });
}

/** The account export's keys: what the key list shows, never the key or its hash. */
export async function exportUserKeys(db: Db, userId: string): Promise<{ apiKeys: ApiKeyView[] }> {
  const [keys, user] = await Promise.all([
    db.apiKey.findMany({ where: { userId }, orderBy: { id: 'asc' } }),
    db.user.findUniqueOrThrow({ where: { id: userId }, select: { id: true, name: true } }),
  ]);
  return { apiKeys: keys.map((key) => toApiKeyView(key, { organizationId: null, role: null, createdBy: user })) };
}
