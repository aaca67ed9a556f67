import type { AppContext } from '../../context.js';
import { Prisma, type OrgMember, type User } from '../../generated/prisma/client.js';
import { AppError, forbidden, notFound } from '../../http/app-error.js';
import { toPage, type PageQuery } from '../../http/pagination.js';
import { recordEvent, userRef } from '../auth/events.js';
import type { Authentication } from '../auth/guard.js';
import { actingUser, findMembership, type Membership } from './membership.js';
import { lockOrganization } from './organization-lock.js';
import { toMemberView, withUser, type MemberView } from './organization-views.js';
import { canRemoveMember, type Role } from './roles.js';
import { TRANSACTION_OPTIONS } from './transaction-options.js';

const memberNotFound = () => notFound('Member not found.');
const lastOwner = () => new AppError(409, 'LAST_OWNER', 'An organization must keep at least one owner. Promote another member to owner first.');
const cannotRemove = () => forbidden('Admins can remove members only; owners and admins can be removed by an owner.');

/** A membership row with its user's email and name, as the members page reads them. */
type MemberRow = OrgMember & Pick<User, 'email' | 'name'>;

/**
 * A page of members with their users: a keyset read on @@index([organizationId, id]). It is one
 * SQL statement because the page is the organizations module's busiest read: Prisma's `include`
 * would read the memberships, then their users in a second query, and the caller's membership
 * would be a third read before them. Here it is an EXISTS on @@unique([userId, organizationId]) in
 * the same statement (the same SQL on SQLite and PostgreSQL). Every organization keeps an owner,
 * so an empty page is a stranger's (404) or a page past the end: only then is membership read alone.
 */
export async function listMembers(ctx: AppContext, organizationId: string, caller: Authentication, page: PageQuery): Promise<{ members: MemberView[]; nextCursor: string | null }> {
  const viewerId = caller.via === 'apiKey' && caller.organization ? null : actingUser(caller).id;
  // An organization's key is checked without a read; a user is checked in the statement.
  if (viewerId === null) await findMembership(ctx, organizationId, caller);
  const viewerIsMember = viewerId
    ? Prisma.sql`AND EXISTS (SELECT 1 FROM "OrgMember" v WHERE v."userId" = ${viewerId} AND v."organizationId" = ${organizationId})`
    : Prisma.empty;
  const after = page.cursor ? Prisma.sql`AND m."id" > ${page.cursor}` : Prisma.empty;
  const found = await ctx.prisma.$queryRaw<MemberRow[]>`
    SELECT m."id", m."organizationId", m."userId", m."role", m."joinedAt", u."email", u."name"
    FROM "OrgMember" m JOIN "User" u ON u."id" = m."userId"
    WHERE m."organizationId" = ${organizationId} ${viewerIsMember} ${after}
    ORDER BY m."id"
    LIMIT ${page.limit + 1}`;
  if (found.length === 0 && viewerId) await findMembership(ctx, organizationId, caller);
  const { rows, nextCursor } = toPage(found, page);
  return { members: rows.map(({ email, name, ...member }) => toMemberView({ ...member, user: { email, name } })), nextCursor };
}

/** A member of this organization, or 404 (also for a member id of another organization). */
async function findMember(db: Prisma.TransactionClient, organizationId: string, memberId: string): Promise<OrgMember> {
  const member = await db.orgMember.findFirst({ where: { id: memberId, organizationId } });
  if (!member) throw memberNotFound();
  return member;
}

/**
 * Runs a change that must leave the organization an owner, holding the organization's lock, so
 * that two such changes of one organization never interleave: when two owners demote each other
 * at the same moment, the second sees the first one's result and gets 409 LAST_OWNER.
 *
 * `change` returns an AppError rather than throwing it: a refused change then ends with a commit of
 * nothing instead of a rollback, which matters on SQLite, where every request shares one connection.
 */
async function changeWithOwnerCheck<Result>(
  ctx: AppContext,
  organizationId: string,
  change: (tx: Prisma.TransactionClient, ownerCount: () => Promise<number>) => Promise<Result | AppError>,
): Promise<Result> {
  const result = await ctx.prisma.$transaction(async (tx) => {
    await lockOrganization(ctx, tx, organizationId);
    return change(tx, () => tx.orgMember.count({ where: { organizationId, role: 'owner' } }));
  }, TRANSACTION_OPTIONS);
  if (result instanceof AppError) throw result;
  return result;
}

/** A member leaves (any role, itself) or is removed (by an owner; by an admin if it is a plain member). */
export async function removeMember(ctx: AppContext, membership: Membership, memberId: string): Promise<void> {
  const { organizationId } = membership;
  const target = await findMember(ctx.prisma, organizationId, memberId);
  if (!canRemoveMember(membership, target)) throw cannotRemove();

  await changeWithOwnerCheck(ctx, organizationId, async (tx, ownerCount) => {
    // Checked again under the lock: roles may have changed since the request started.
    const current = await tx.orgMember.findFirst({ where: { id: memberId, organizationId } });
    if (!current) return memberNotFound();
    if (current.role === 'owner' && (await ownerCount()) <= 1) return lastOwner();
    // A member's role is read again; an organization key's role never changes.
    const actor = membership.id ? await tx.orgMember.findUnique({ where: { id: membership.id } }) : membership;
    if (!actor) return memberNotFound();
    if (!canRemoveMember(actor, current)) return cannotRemove();
    await tx.orgMember.delete({ where: { id: current.id } });
    await recordEvent(ctx, tx, {
      action: 'member.removed',
      target: userRef(current.userId),
      organizationId,
      metadata: { memberId: current.id, role: current.role, left: current.id === membership.id },
    });
    return undefined;
  });
}

/** Owners change roles, including promoting members to owner and demoting owners (never the last). */
export async function changeMemberRole(ctx: AppContext, membership: Membership, memberId: string, role: Role): Promise<MemberView> {
  const { organizationId } = membership;
  await findMember(ctx.prisma, organizationId, memberId);

  const member = await changeWithOwnerCheck(ctx, organizationId, async (tx, ownerCount) => {
    const current = await tx.orgMember.findFirst({ where: { id: memberId, organizationId } });
    if (!current) return memberNotFound();
    if (current.role === 'owner' && role !== 'owner' && (await ownerCount()) <= 1) return lastOwner();
    const actor = membership.id ? await tx.orgMember.findUnique({ where: { id: membership.id } }) : null;
    if (actor?.role !== 'owner') return forbidden('Only an owner can change roles.');
    const changed = await tx.orgMember.update({ where: { id: current.id }, data: { role }, include: withUser });
    await recordEvent(ctx, tx, { action: 'member.role_changed', target: userRef(current.userId), organizationId, metadata: { memberId: current.id, from: current.role, to: role } });
    return changed;
  });
  return toMemberView(member);
}
