import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { AppError } from '../../http/app-error.js';
import { isMissingRecord, isUniqueViolation } from '../../http/database-errors.js';
import { organizationNotFound, type Membership } from './membership.js';
import type { CreateOrganizationInput, UpdateOrganizationInput } from './organization.schemas.js';
import { toOrganizationView, type OrganizationView } from './organization-views.js';
import { afterCursor, toPage, type PageQuery } from './pagination.js';
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
    ctx.prisma.organization.create({
      data: {
        name: input.name,
        slug,
        description: input.description ?? null,
        members: { create: { userId: user.id, role: 'owner' } },
      },
    }),
  );
  return toOrganizationView(organization, 'owner');
}

/** The caller's organizations, each with the caller's role, in the order they joined them. */
export async function listOrganizations(
  ctx: AppContext,
  user: User,
  page: PageQuery,
): Promise<{ organizations: OrganizationView[]; nextCursor: string | null }> {
  const memberships = await ctx.prisma.orgMember.findMany({
    where: { userId: user.id, ...afterCursor(page) },
    include: { organization: true },
    orderBy: { id: 'asc' },
    take: page.limit + 1,
  });
  const { rows, nextCursor } = toPage(memberships, page);
  return { organizations: rows.map((membership) => toOrganizationView(membership.organization, membership.role)), nextCursor };
}

export async function updateOrganization(ctx: AppContext, membership: Membership, input: UpdateOrganizationInput): Promise<OrganizationView> {
  const organization = await writeOrganization(() =>
    ctx.prisma.organization.update({
      where: { id: membership.organizationId },
      data: { name: input.name, slug: input.slug, description: input.description },
    }),
  );
  return toOrganizationView(organization, membership.role);
}

/** Members and invites are deleted with it (foreign keys cascade). */
export async function deleteOrganization(ctx: AppContext, membership: Membership): Promise<void> {
  await writeOrganization(() => ctx.prisma.organization.delete({ where: { id: membership.organizationId } }));
}
