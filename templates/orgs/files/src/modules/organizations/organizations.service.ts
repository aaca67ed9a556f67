import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { AppError } from '../../http/app-error.js';
import { isMissingRecord, isUniqueViolation } from '../../http/database-errors.js';
import { afterCursor, toPage, type PageQuery } from '../../http/pagination.js';
import { recordEvent } from '../auth/events.js';
import type { Authentication } from '../auth/guard.js';
import { actingUser, organizationNotFound, type Membership } from './membership.js';
import type { CreateOrganizationInput, UpdateOrganizationInput } from './organization.schemas.js';
import { toOrganizationView, type OrganizationView } from './organization-views.js';
import { organizationRef } from './organization-events.js';
import { isValidSlug, slugFromName } from './slug.js';

const slugTaken = () => new AppError(409, 'SLUG_TAKEN', 'Another organization already uses this slug.');

/**
 * Runs a write of the organization row. A slug conflict surfaces as a unique violation, also when
 * two requests race for the same slug.
 */
async function writeOrganization<Result>(write: () => Promise<Result>): Promise<Result> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken();
    if (isMissingRecord(error)) throw organizationNotFound();
    throw error;
  }
}

/** Creates the organization with the caller as its first owner. */
export async function createOrganization(ctx: AppContext, user: User, input: CreateOrganizationInput): Promise<OrganizationView> {
  const slug = input.slug ?? slugFromName(input.name);
  if (!isValidSlug(slug)) {
    throw new AppError(400, 'VALIDATION_ERROR', 'The request is invalid.', [
      { path: 'slug', message: 'no slug of 3 or more a-z0-9 characters can be made from this name; send a slug' },
    ]);
  }
  const organization = await writeOrganization(() =>
    ctx.prisma.$transaction(async (tx) => {
      const created = await tx.organization.create({
        data: {
          name: input.name,
          slug,
          description: input.description ?? null,
          members: { create: { userId: user.id, role: 'owner' } },
        },
      });
      await recordEvent(ctx, tx, { action: 'organization.created', target: organizationRef(created.id), organizationId: created.id, metadata: { slug } });
      return created;
    }),
  );
  return toOrganizationView(organization, 'owner');
}

/**
 * The caller's organizations, each with the caller's role, in the order they joined them. An
 * organization's API key sees its own organization only.
 */
export async function listOrganizations(
  ctx: AppContext,
  caller: Authentication,
  page: PageQuery,
): Promise<{ organizations: OrganizationView[]; nextCursor: string | null }> {
  if (caller.via === 'apiKey' && caller.organization) {
    const { id, role } = caller.organization;
    const organization = page.cursor ? null : await ctx.prisma.organization.findUnique({ where: { id } });
    return { organizations: organization ? [toOrganizationView(organization, role)] : [], nextCursor: null };
  }
  const memberships = await ctx.prisma.orgMember.findMany({
    where: { userId: actingUser(caller).id, ...afterCursor(page) },
    include: { organization: true },
    orderBy: { id: 'asc' },
    take: page.limit + 1,
  });
  const { rows, nextCursor } = toPage(memberships, page);
  return { organizations: rows.map((membership) => toOrganizationView(membership.organization, membership.role)), nextCursor };
}

export async function updateOrganization(ctx: AppContext, membership: Membership, input: UpdateOrganizationInput): Promise<OrganizationView> {
  const organization = await writeOrganization(() =>
    ctx.prisma.$transaction(async (tx) => {
      const updated = await tx.organization.update({
        where: { id: membership.organizationId },
        data: { name: input.name, slug: input.slug, description: input.description },
      });
      const changed = Object.keys(input).filter((field) => input[field as keyof UpdateOrganizationInput] !== undefined);
      await recordEvent(ctx, tx, { action: 'organization.updated', target: organizationRef(updated.id), organizationId: updated.id, metadata: { changed: changed.join(' ') } });
      return updated;
    }),
  );
  return toOrganizationView(organization, membership.role);
}

/** Members and invites are deleted with it (foreign keys cascade). */
export async function deleteOrganization(ctx: AppContext, membership: Membership): Promise<void> {
  const { organizationId } = membership;
  await writeOrganization(() =>
    ctx.prisma.$transaction(async (tx) => {
      await tx.organization.delete({ where: { id: organizationId } });
      await recordEvent(ctx, tx, { action: 'organization.deleted', target: organizationRef(organizationId), organizationId });
    }),
  );
}
