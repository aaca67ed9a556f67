import type { AppContext } from '../../context.js';
import { sqlDate, sqlText } from '../../db/sql-reads.js';
import type { Organization, OrgMember } from '../../generated/prisma/client.js';
import { notFound } from '../../http/app-error.js';

/** The caller's membership row: organizationId, role, userId. */
export type Membership = OrgMember;

/** The membership with its organization, for the routes that show or mail the organization. */
export type MembershipWithOrganization = OrgMember & { organization: Organization };

/** The same answer for an organization that does not exist and one the caller does not belong to. */
export const organizationNotFound = () => notFound('Organization not found.');

const MEMBERSHIP = `
  SELECT "id", "organizationId", "userId", "role", "joinedAt" FROM {OrgMember} WHERE "userId" = ? AND "organizationId" = ?`;

/**
 * The caller's membership, read from the database on every request: a role change takes effect on
 * the very next request, and the role is never taken from the access token. One indexed read
 * (on @@unique([userId, organizationId])), as SQL since every organization route runs it
 * (db/sql-reads.ts); the organization row only where the route needs it.
 */
export async function findMembership(ctx: AppContext, organizationId: string, userId: string): Promise<Membership> {
  const row = await ctx.sql.row(MEMBERSHIP, [userId, organizationId]);
  if (!row) throw organizationNotFound();
  const [id, orgId, memberUserId, role, joinedAt] = row;
  return { id: sqlText(id), organizationId: sqlText(orgId), userId: sqlText(memberUserId), role: sqlText(role), joinedAt: sqlDate(joinedAt) };
}

export async function findMembershipWithOrganization(ctx: AppContext, organizationId: string, userId: string): Promise<MembershipWithOrganization> {
  const membership = await ctx.prisma.orgMember.findUnique({
    where: { userId_organizationId: { userId, organizationId } },
    include: { organization: true },
  });
  if (!membership) throw organizationNotFound();
  return membership;
}
