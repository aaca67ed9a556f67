import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import type { Db, DeletionOptions } from '../auth/account-events.js';
import { lockOrganization } from './organization-lock.js';

const soleOwner = (organizations: { id: string; name: string; slug: string }[]) =>
  new AppError(
    409,
    'SOLE_OWNER',
    'You are the only owner of organizations that have other members. Make another member an owner of each, or delete it, first.',
    organizations,
  );

/**
 * Before a user is deleted (src/modules/auth/account-deletion.ts): an organization they are the
 * only member of goes with them. One they alone own that has other members refuses the deletion
 * (409 SOLE_OWNER, naming each), unless the caller asked to delete those too (an admin's
 * deleteSoleOwnedOrganizations). Their other memberships go with their row.
 *
 * Each organization is read under its lock, as every change that must leave it an owner is
 * (members.service.ts): an owner leaving at the same moment cannot leave it with none.
 */
export async function removeOrganizationsOfDeletedUser(db: Db, userId: string, ctx: AppContext, options: DeletionOptions): Promise<void> {
  const owned = await db.orgMember.findMany({ where: { userId, role: 'owner' }, select: { organizationId: true }, orderBy: { organizationId: 'asc' } });
  const refused: string[] = [];
  const deleted: string[] = [];
  for (const { organizationId } of owned) {
    await lockOrganization(ctx, db, organizationId);
    if ((await db.orgMember.count({ where: { organizationId, role: 'owner' } })) > 1) continue;
    const alone = (await db.orgMember.count({ where: { organizationId } })) === 1;
    if (alone || options.deleteSoleOwnedOrganizations) deleted.push(organizationId);
    else refused.push(organizationId);
  }
  if (refused.length > 0) {
    throw soleOwner(await db.organization.findMany({ where: { id: { in: refused } }, select: { id: true, name: true, slug: true }, orderBy: { name: 'asc' } }));
  }
  // Their members and invites go with them (cascade).
  await db.organization.deleteMany({ where: { id: { in: deleted } } });
}
