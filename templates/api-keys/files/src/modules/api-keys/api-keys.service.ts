import type { AppContext } from '../../context.js';
import type { ApiKey, User } from '../../generated/prisma/client.js';
import { AppError, notFound } from '../../http/app-error.js';
import { afterCursor, toPage, type PageQuery } from '../../http/pagination.js';
import { recordEvent } from '../auth/events.js';
import { lockUser } from '../auth/user-lock.js';
import { toApiKeyView, type ApiKeyView } from './api-key-views.js';
import type { NewKeyInput } from './api-keys.schemas.js';
import { hashKey, newKey, startOf, type KeyKind } from './key-format.js';
import { defaultScopes } from './scopes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const keyNotFound = () => notFound('API key not found.');
export const keyLimit = (max: number) => new AppError(409, 'API_KEY_LIMIT', `At most ${max} live API keys are allowed. Delete one first.`);

/** What a new key stores, with the key itself (shown to its maker once). */
export function issueKey(ctx: AppContext, kind: KeyKind, input: NewKeyInput) {
  const key = newKey(kind);
  return {
    key,
    data: {
      name: input.name,
      start: startOf(key),
      keyHash: hashKey(key),
      scopes: (input.scopes ?? defaultScopes(ctx.config)).join(' '),
      expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * DAY_MS) : null,
    },
  };
}

/** Keys that still work: not expired. */
export const live = (now = new Date()) => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });

const userKeyView = (key: ApiKey, user: Pick<User, 'id' | 'name'>): ApiKeyView =>
  toApiKeyView(key, { organizationId: null, role: null, createdBy: { id: user.id, name: user.name } });

/**
 * A new key of the user's, shown once. At most API_KEYS_MAX live keys: counted and created while
 * the user's row is locked, so two creations at once cannot both take the last place.
 */
export async function createUserKey(ctx: AppContext, user: User, input: NewKeyInput): Promise<{ apiKey: ApiKeyView; key: string }> {
  const { key, data } = issueKey(ctx, 'user', input);
  const created = await ctx.prisma.$transaction(async (tx) => {
    await lockUser(tx, user.id);
    if ((await tx.apiKey.count({ where: { userId: user.id, ...live() } })) >= ctx.config.API_KEYS_MAX) return keyLimit(ctx.config.API_KEYS_MAX);
    const created = await tx.apiKey.create({ data: { ...data, userId: user.id } });
    await recordEvent(ctx, tx, { action: 'api_key.created', target: { type: 'apiKey', id: created.id }, metadata: { name: created.name, scopes: created.scopes } });
    return created;
  });
  if (created instanceof AppError) throw created;
  return { apiKey: userKeyView(created, user), key };
}

/** The user's keys (expired ones too, until they are deleted), oldest first, a page at a time. */
export async function listUserKeys(ctx: AppContext, user: User, page: PageQuery): Promise<{ apiKeys: ApiKeyView[]; nextCursor: string | null }> {
  const keys = await ctx.prisma.apiKey.findMany({ where: { userId: user.id, ...afterCursor(page) }, orderBy: { id: 'asc' }, take: page.limit + 1 });
  const { rows, nextCursor } = toPage(keys, page);
  return { apiKeys: rows.map((key) => userKeyView(key, user)), nextCursor };
}

export async function renameUserKey(ctx: AppContext, user: User, id: string, name: string): Promise<ApiKeyView> {
  const { count } = await ctx.prisma.apiKey.updateMany({ where: { id, userId: user.id }, data: { name } });
  if (count === 0) throw keyNotFound();
  return userKeyView(await ctx.prisma.apiKey.findUniqueOrThrow({ where: { id } }), user);
}

/** Ends a key at once: the next request with it, on any instance, finds no key. */
export async function deleteUserKey(ctx: AppContext, user: User, id: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.apiKey.deleteMany({ where: { id, userId: user.id } });
    if (count === 0) throw keyNotFound();
    await recordEvent(ctx, tx, { action: 'api_key.deleted', target: { type: 'apiKey', id } });
  });
}
