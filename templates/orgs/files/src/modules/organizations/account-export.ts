import type { Db } from '../auth/account-events.js';

/** The account export's organizations: each one the user belongs to, with their role. */
export async function exportOrganizations(db: Db, userId: string): Promise<{ organizations: object[] }> {
  const memberships = await db.orgMember.findMany({
    where: { userId },
    select: { role: true, joinedAt: true, organization: { select: { id: true, name: true, slug: true } } },
    orderBy: { joinedAt: 'asc' },
  });
  return { organizations: memberships.map(({ organization, role, joinedAt }) => ({ ...organization, role, joinedAt })) };
}
