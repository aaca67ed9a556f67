import type { AppContext } from '../../context.js';
import type { Organization, OrgMember } from '../../generated/prisma/client.js';
import { forbidden, notFound } from '../../http/app-error.js';
import type { Authentication } from '../auth/guard.js';

/**
 * Who acts in an organization: a member (its row), or an organization's API key, which acts as a
 * member of its role in that organization only, with no row and no user.
 */
export type Membership = Pick<OrgMember, 'organizationId' | 'role'> & {
  /** The acting member's row and user; null for an organization key. */
  id: string | null;
  userId: string | null;
  /** The organization key acting instead of a member, if one is. */
  apiKey: { id: string; name: string } | null;
};

/** The membership with its organization, for the routes that show or mail the organization. */
export type MembershipWithOrganization = Membership & { organization: Organization };

/** The same answer for an organization that does not exist and one the caller does not belong to. */
export const organizationNotFound = () => notFound('Organization not found.');

const ofMember = (member: OrgMember): Membership => ({ ...member, apiKey: null });

/** The user a caller acts as: a session's, or a user key's. An organization's key has none. */
export function actingUser(caller: Authentication) {
  if (!caller.user) throw forbidden("An organization's API key acts in its organization only and cannot do this.");
  return caller.user;
}

/**
 * The caller's membership, read from the database on every request: a role change takes effect on
 * the very next request, and the role is never taken from the access token. One indexed read
 * (on @@unique([userId, organizationId])); the organization row only where the route needs it. An
 * organization key is a member of its own organization only: any other is 404, as for a stranger.
 */
export async function findMembership(ctx: AppContext, organizationId: string, caller: Authentication): Promise<Membership> {
  if (caller.via === 'apiKey' && caller.organization) {
    if (caller.organization.id !== organizationId) throw organizationNotFound();
    return { organizationId, role: caller.organization.role, id: null, userId: null, apiKey: { id: caller.key.id, name: caller.key.name } };
  }
  const userId = actingUser(caller).id;
  const membership = await ctx.prisma.orgMember.findUnique({ where: { userId_organizationId: { userId, organizationId } } });
  if (!membership) throw organizationNotFound();
  return ofMember(membership);
}

export async function findMembershipWithOrganization(ctx: AppContext, organizationId: string, caller: Authentication): Promise<MembershipWithOrganization> {
  if (caller.via === 'apiKey' && caller.organization) {
    const membership = await findMembership(ctx, organizationId, caller);
    const organization = await ctx.prisma.organization.findUnique({ where: { id: organizationId } });
    if (!organization) throw organizationNotFound();
    return { ...membership, organization };
  }
  const userId = actingUser(caller).id;
  const membership = await ctx.prisma.orgMember.findUnique({
    where: { userId_organizationId: { userId, organizationId } },
    include: { organization: true },
  });
  if (!membership) throw organizationNotFound();
  return { ...ofMember(membership), organization: membership.organization };
}
