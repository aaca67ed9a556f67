import type { AppContext } from '../../context.js';
import type { OrganizationApiKey, User } from '../../generated/prisma/client.js';
import { AppError, forbidden } from '../../http/app-error.js';
import { afterCursor, toPage, type PageQuery } from '../../http/pagination.js';
import { recordEvent } from '../auth/events.js';
import type { Membership } from '../organizations/membership.js';
import { lockOrganization } from '../organizations/organization-lock.js';
import { toApiKeyView, type ApiKeyView } from './api-key-views.js';
import { issueKey, keyLimit, keyNotFound, live } from './api-keys.service.js';
import type { NewKeyInput } from './api-keys.schemas.js';

export type NewOrganizationKeyInput = NewKeyInput & { role: 'member' | 'admin' };

const withMaker = { createdBy: { select: { id: true, name: true } } } as const;
type KeyWithMaker = OrganizationApiKey & { createdBy: Pick<User, 'id' | 'name'> | null };

const organizationKeyView = (key: KeyWithMaker): ApiKeyView =>
  toApiKeyView(key, { organizationId: key.organizationId, role: key.role, createdBy: key.createdBy });

/**
 * A new key of the organization, made by an owner or admin and shown once. Only an owner makes an
 * admin key. At most API_KEYS_MAX live keys per organization (its maker's own keys do not count):
 * counted and created under the organization's lock.
 */
export async function createOrganizationKey(
  ctx: AppContext,
  membership: Membership,
  maker: User,
  input: NewOrganizationKeyInput,
): Promise<{ apiKey: ApiKeyView; key: string }> {
  if (input.role === 'admin' && membership.role !== 'owner') throw forbidden('Only an owner can make an admin key.');
  const { organizationId } = membership;
  const { key, data } = issueKey(ctx, 'organization', input);
  const created = await ctx.prisma.$transaction(async (tx) => {
    await lockOrganization(ctx, tx, organizationId);
    const count = await tx.organizationApiKey.count({ where: { organizationId, ...live() } });
    if (count >= ctx.config.API_KEYS_MAX) return keyLimit(ctx.config.API_KEYS_MAX);
    const created = await tx.organizationApiKey.create({ data: { ...data, organizationId, role: input.role, createdById: maker.id }, include: withMaker });
    await recordEvent(ctx, tx, {
      action: 'api_key.created',
      target: { type: 'apiKey', id: created.id },
      organizationId,
      metadata: { name: created.name, role: created.role, scopes: created.scopes },
    });
    return created;
  });
  if (created instanceof AppError) throw created;
  return { apiKey: organizationKeyView(created), key };
}

export async function listOrganizationKeys(
  ctx: AppContext,
  membership: Membership,
  page: PageQuery,
): Promise<{ apiKeys: ApiKeyView[]; nextCursor: string | null }> {
  const keys = await ctx.prisma.organizationApiKey.findMany({
    where: { organizationId: membership.organizationId, ...afterCursor(page) },
    include: withMaker,
    orderBy: { id: 'asc' },
    take: page.limit + 1,
  });
  const { rows, nextCursor } = toPage(keys, page);
  return { apiKeys: rows.map(organizationKeyView), nextCursor };
}

/** Ends a key at once: the next request with it, on any instance, finds no key. */
export async function deleteOrganizationKey(ctx: AppContext, membership: Membership, id: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.organizationApiKey.deleteMany({ where: { id, organizationId: membership.organizationId } });
    if (count === 0) throw keyNotFound();
    await recordEvent(ctx, tx, { action: 'api_key.deleted', target: { type: 'apiKey', id }, organizationId: membership.organizationId });
  });
}
