import type { AppContext } from '../../context.js';
import type { Db } from '../auth/account-hooks.js';
import { lockOrganization } from './organization-lock.js';

/**
 * A provisional account taken over by its mailbox's owner (src/modules/auth/mailbox-proof.ts)
 * leaves every organization it joined before: one it was the only owner of is deleted, with its
 * members and invites, and it simply leaves the others. The invites it sent that are still pending
 * are revoked. So the owner starts with no organization, co-owner or invitee the squatter chose.
 *
 * Each organization is changed under its lock, as every change that must leave it an owner is
 * (members.service.ts): an owner leaving at the same moment cannot leave it with none.
 */
export async function leaveOrganizations(db: Db, userId: string, ctx: AppContext): Promise<void> {
  const memberships = await db.orgMember.findMany({ where: { userId }, select: { organizationId: true }, orderBy: { organizationId: 'asc' } });
  for (const { organizationId } of memberships) {
    await lockOrganization(ctx, db, organizationId);
    const membership = await db.orgMember.findUnique({ where: { userId_organizationId: { userId, organizationId } } });
    if (!membership) continue;
    const soleOwner = membership.role === 'owner' && (await db.orgMember.count({ where: { organizationId, role: 'owner' } })) === 1;
    if (soleOwner) {
      await db.organization.delete({ where: { id: organizationId } });
    } else {
      await db.orgMember.delete({ where: { id: membership.id } });
    }
  }
  await db.orgInvite.updateMany({ where: { invitedById: userId, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
}
