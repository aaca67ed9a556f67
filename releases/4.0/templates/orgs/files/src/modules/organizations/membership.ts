import type { AppContext } from '../../context.js';
import type { Organization, OrgMember } from '../../generated/prisma/client.js';
import { notFound } from '../../http/app-error.js';

/** The caller's membership row: organizationId, role, userId. */
export type Membership = OrgMember;

/** The membership with its organization, for the routes that show or mail the organization. */
export type MembershipWithOrganization = OrgMember & { organization: Organization };

/** The same answer for an organization that does not exist and one the caller does not belong to. */
export const organizationNotFound = () => notFound('Organization not found.');

/**
 * The caller's membership, read from the database on every request: a role change takes effect on
 * the very next request, and the role is never taken from the access token. One indexed read
 * (on @@unique([userId, organizationId])); the organization row only where the route needs it.
 */
export async function findMembership(ctx: AppContext, organizationId: string, userId: string): Promise<Membership> {
  const membership = await ctx.prisma.orgMember.findUnique({ where: { userId_organizationId: { userId, organizationId } } });
  if (!membership) throw organizationNotFound();
  return membership;
}

export async function findMembershipWithOrganization(ctx: AppContext, organizationId: string, userId: string): Promise<MembershipWithOrganization> {
  const membership = await ctx.prisma.orgMember.findUnique({
    where: { userId_organizationId: { userId, organizationId } },
    include: { organization: true },
  });
  if (!membership) throw organizationNotFound();
  return membership;
}
