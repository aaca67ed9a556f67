import type { AppContext } from '../../context.js';
import type { Organization, OrgInvite, User } from '../../generated/prisma/client.js';
import { AppError, forbidden, notFound } from '../../http/app-error.js';
import { isUniqueViolation } from '../../http/database-errors.js';
import { sendMail } from '../../mail/outgoing-mail.js';
import { hashToken, randomToken } from '../auth/one-time-tokens.js';
import { inviteMail } from './invite-mail.js';
import type { Membership, MembershipWithOrganization } from './membership.js';
import type { InviteInput } from './organization.schemas.js';
import {
  toInviteView,
  toMemberView,
  toOrganizationView,
  withInviter,
  withUser,
  type InviteView,
  type InviteWithInviter,
  type MemberView,
  type MemberWithUser,
  type OrganizationView,
} from './organization-views.js';
import { afterCursor, toPage, type PageQuery } from './pagination.js';
import { toRole, type Role } from './roles.js';
import { TRANSACTION_OPTIONS } from './transaction-options.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const alreadyMember = () => new AppError(409, 'ALREADY_MEMBER', 'This person is already a member of the organization.');
const alreadyInvited = () =>
  new AppError(409, 'ALREADY_INVITED', 'This email address already has a pending invite. Send "resend": true to send a new link.');
const onlyOwnersManageAdminInvites = () => forbidden('Only an owner can resend or revoke an invite for the admin role.');
const inviteNotFound = () => new AppError(404, 'INVITE_NOT_FOUND', 'This invite link is not valid.');
const inviteExpired = () => new AppError(410, 'INVITE_EXPIRED', 'This invite has expired. Ask for a new one.');
const inviteRevoked = () => new AppError(410, 'INVITE_REVOKED', 'This invite was withdrawn.');
const inviteUsed = () => new AppError(410, 'INVITE_USED', 'This invite has already been used.');
/** Deliberately does not say which address the invite was sent to. */
const emailMismatch = () =>
  new AppError(403, 'INVITE_EMAIL_MISMATCH', 'This invite was sent to another email address. Sign in with the address that received it.');

/** Neither accepted, nor revoked, nor expired. */
const pending = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

function isPending(invite: OrgInvite, now = new Date()): boolean {
  return !invite.acceptedAt && !invite.revokedAt && invite.expiresAt > now;
}

export interface CreatedInvite {
  invite: InviteView;
  inviteUrl: string;
  emailSent: boolean;
}

/**
 * Invites an address (owners may invite admins, admins only members) and mails the link. A mail
 * that cannot be sent leaves the invite in place: the answer says emailSent: false, and the caller
 * can share inviteUrl another way.
 */
export async function createInvite(ctx: AppContext, membership: MembershipWithOrganization, input: InviteInput): Promise<CreatedInvite> {
  const { organizationId } = membership;
  if (input.role === 'admin' && membership.role !== 'owner') throw forbidden('Only an owner can invite an admin.');
  const member = await ctx.prisma.orgMember.findFirst({ where: { organizationId, user: { email: input.email } } });
  if (member) throw alreadyMember();

  const token = randomToken();
  const invite = await saveInvite(ctx, membership, input, {
    role: input.role,
    tokenHash: hashToken(token),
    invitedById: membership.userId,
    expiresAt: new Date(Date.now() + ctx.config.INVITE_EXPIRY_DAYS * DAY_MS),
    acceptedAt: null,
    acceptedById: null,
    revokedAt: null,
  });
  const inviteUrl = `${ctx.config.APP_URL}/invite/${token}`;
  const emailSent = await sendInviteMail(ctx, membership.organization, invite, inviteUrl);
  return { invite: toInviteView(invite), inviteUrl, emailSent };
}

type InviteFields = Pick<OrgInvite, 'role' | 'tokenHash' | 'invitedById' | 'expiresAt' | 'acceptedAt' | 'acceptedById' | 'revokedAt'>;

/**
 * One row per organization and address: a new row, or the existing one with a new token, role and
 * expiry (a resend, or an earlier invite that expired, was revoked, or was used by someone who has
 * left since). The old token stops working. Concurrent invites of one address: one wins, the
 * others get 409 ALREADY_INVITED. A pending admin invite is the owners' to resend: an admin who
 * could rotate its link would hold a link to the admin role.
 */
async function saveInvite(ctx: AppContext, inviter: Membership, input: InviteInput, fields: InviteFields): Promise<InviteWithInviter> {
  const { organizationId } = inviter;
  const existing = await ctx.prisma.orgInvite.findUnique({ where: { organizationId_email: { organizationId, email: input.email } } });
  if (existing && isPending(existing) && !input.resend) throw alreadyInvited();
  if (existing && isPending(existing) && existing.role === 'admin' && inviter.role !== 'owner') throw onlyOwnersManageAdminInvites();
  if (existing) {
    const { count } = await ctx.prisma.orgInvite.updateMany({ where: { id: existing.id, updatedAt: existing.updatedAt }, data: fields });
    if (count === 0) throw alreadyInvited();
    return ctx.prisma.orgInvite.findUniqueOrThrow({ where: { id: existing.id }, include: withInviter });
  }
  try {
    return await ctx.prisma.orgInvite.create({ data: { organizationId, email: input.email, ...fields }, include: withInviter });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyInvited();
    throw error;
  }
}

/**
 * True when the SMTP server accepted the mail; false when it failed (logged) or the address got
 * too many invites lately. Without SMTP, development prints it to the console.
 */
async function sendInviteMail(ctx: AppContext, organization: Organization, invite: InviteWithInviter, inviteUrl: string): Promise<boolean> {
  const message = inviteMail({
    to: invite.email,
    organizationName: organization.name,
    inviterName: invite.invitedBy?.name ?? invite.invitedBy?.email ?? 'Someone',
    role: toRole(invite.role),
    inviteUrl,
    expiryDays: ctx.config.INVITE_EXPIRY_DAYS,
  });
  return sendMail(ctx, 'invite', message);
}

/** Pending invites only: neither accepted, revoked nor expired. */
export async function listInvites(ctx: AppContext, membership: Membership, page: PageQuery): Promise<{ invites: InviteView[]; nextCursor: string | null }> {
  const invites = await ctx.prisma.orgInvite.findMany({
    where: { organizationId: membership.organizationId, ...pending(new Date()), ...afterCursor(page) },
    include: withInviter,
    orderBy: { id: 'asc' },
    take: page.limit + 1,
  });
  const { rows, nextCursor } = toPage(invites, page);
  return { invites: rows.map(toInviteView), nextCursor };
}

/**
 * The link stops working (410 INVITE_REVOKED). An accepted invite, or one of another organization,
 * is not found. Invites for the admin role are revoked by owners only.
 */
export async function revokeInvite(ctx: AppContext, membership: Membership, inviteId: string): Promise<void> {
  const where = { id: inviteId, organizationId: membership.organizationId, acceptedAt: null };
  const invite = await ctx.prisma.orgInvite.findFirst({ where, select: { role: true } });
  if (!invite) throw notFound('Invite not found.');
  if (invite.role === 'admin' && membership.role !== 'owner') throw onlyOwnersManageAdminInvites();
  const { count } = await ctx.prisma.orgInvite.updateMany({ where: { ...where, role: invite.role }, data: { revokedAt: new Date() } });
  if (count === 0) throw notFound('Invite not found.');
}

type InviteWithOrganization = OrgInvite & { organization: Organization; invitedBy: Pick<User, 'name'> | null };

function findInvite(ctx: AppContext, token: string): Promise<InviteWithOrganization | null> {
  return ctx.prisma.orgInvite.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { organization: true, invitedBy: { select: { name: true } } },
  });
}

/** Why an invite can no longer be used, if it cannot. */
function unusableReason(invite: OrgInvite): AppError | undefined {
  if (invite.acceptedAt) return inviteUsed();
  if (invite.revokedAt) return inviteRevoked();
  if (invite.expiresAt <= new Date()) return inviteExpired();
  return undefined;
}

export interface InvitePreview {
  organization: { name: string; slug: string };
  role: Role;
  invitedBy: { name: string | null };
  expiresAt: string;
}

/** What the invite page shows before the invitee signs in. It never shows the invited address. */
export async function previewInvite(ctx: AppContext, token: string): Promise<InvitePreview> {
  const invite = await findInvite(ctx, token);
  if (!invite) throw inviteNotFound();
  const unusable = unusableReason(invite);
  if (unusable) throw unusable;
  return {
    organization: { name: invite.organization.name, slug: invite.organization.slug },
    role: toRole(invite.role),
    invitedBy: { name: invite.invitedBy?.name ?? null },
    expiresAt: invite.expiresAt.toISOString(),
  };
}

export interface AcceptedInvite {
  organization: OrganizationView;
  member: MemberView;
}

const accepted = (organization: Organization, member: MemberWithUser): AcceptedInvite => ({
  organization: toOrganizationView(organization, member.role),
  member: toMemberView(member),
});

/**
 * Joins the organization with the invite's role. Only the invited address may accept; accepting
 * again as the same user answers with the same membership; concurrent accepts make one membership.
 */
export async function acceptInvite(ctx: AppContext, user: User, token: string): Promise<AcceptedInvite> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const invite = await findInvite(ctx, token);
    if (!invite) throw inviteNotFound();
    if (invite.acceptedAt && invite.acceptedById === user.id) {
      const member = await ctx.prisma.orgMember.findUnique({
        where: { userId_organizationId: { userId: user.id, organizationId: invite.organizationId } },
        include: withUser,
      });
      if (member) return accepted(invite.organization, member);
    }
    const unusable = unusableReason(invite);
    if (unusable) throw unusable;
    // Both addresses went through the same normalizer (src/modules/auth/email-address.ts): compared as stored, never folded again.
    if (invite.email !== user.email) throw emailMismatch();
    const member = await claimInvite(ctx, invite, user);
    if (member) return accepted(invite.organization, member);
    // The invite changed between reading and claiming it (accepted, revoked or resent): look again.
  }
  throw inviteUsed();
}

/**
 * Marks the invite accepted and creates the membership in one transaction. The conditional update
 * lets exactly one of several concurrent accepts through; the others read the result afterwards.
 * Accepting does not verify the email: the inviter saw the link too, so it proves no mailbox.
 */
function claimInvite(ctx: AppContext, invite: OrgInvite, user: User): Promise<MemberWithUser | undefined> {
  const now = new Date();
  return ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.orgInvite.updateMany({
      where: { id: invite.id, tokenHash: invite.tokenHash, ...pending(now) },
      data: { acceptedAt: now, acceptedById: user.id },
    });
    if (count === 0) return undefined;
    const membership = { userId: user.id, organizationId: invite.organizationId };
    const existing = await tx.orgMember.findUnique({ where: { userId_organizationId: membership }, include: withUser });
    return existing ?? tx.orgMember.create({ data: { ...membership, role: invite.role }, include: withUser });
  }, TRANSACTION_OPTIONS);
}
