import type { Organization, OrgInvite, OrgMember, User } from '../../generated/prisma/client.js';
import { toRole, type Role } from './roles.js';

/** What the API returns. Tokens and token hashes never appear here. */
export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
  /** The caller's role in this organization. */
  role: Role;
}

export interface MemberView {
  id: string;
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  organizationId: string;
  joinedAt: string;
}

export interface InviteView {
  id: string;
  email: string;
  role: Role;
  organizationId: string;
  invitedBy: { id: string; name: string | null; email: string } | null;
  expiresAt: string;
  acceptedAt: string | null;
}

/** Include these relations to show members and invites. */
export const withUser = { user: { select: { email: true, name: true } } } as const;
export const withInviter = { invitedBy: { select: { id: true, name: true, email: true } } } as const;

export type MemberWithUser = OrgMember & { user: Pick<User, 'email' | 'name'> };
export type InviteWithInviter = OrgInvite & { invitedBy: Pick<User, 'id' | 'name' | 'email'> | null };

export function toOrganizationView(organization: Organization, role: string): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    description: organization.description,
    createdAt: organization.createdAt.toISOString(),
    updatedAt: organization.updatedAt.toISOString(),
    role: toRole(role),
  };
}

export function toMemberView(member: MemberWithUser): MemberView {
  return {
    id: member.id,
    userId: member.userId,
    email: member.user.email,
    name: member.user.name,
    role: toRole(member.role),
    organizationId: member.organizationId,
    joinedAt: member.joinedAt.toISOString(),
  };
}

export function toInviteView(invite: InviteWithInviter): InviteView {
  return {
    id: invite.id,
    email: invite.email,
    role: toRole(invite.role),
    organizationId: invite.organizationId,
    invitedBy: invite.invitedBy,
    expiresAt: invite.expiresAt.toISOString(),
    acceptedAt: invite.acceptedAt?.toISOString() ?? null,
  };
}
