import { forbidden } from '../../http/app-error.js';

/** owner: everything. admin: update the organization, manage invites, remove members. member: read. */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** Owners are made by promoting a member, never by invitation. */
export const INVITABLE_ROLES = ['admin', 'member'] as const satisfies readonly Role[];

/** The role column as a Role; an unexpected value counts as the least privileged role. */
export function toRole(value: string): Role {
  return (ROLES as readonly string[]).includes(value) ? (value as Role) : 'member';
}

export function requireRole(role: string, allowed: readonly Role[]): void {
  if (!allowed.includes(toRole(role))) throw forbidden('Your role in this organization does not allow this.');
}

/**
 * Anyone may leave; owners may remove anyone; admins may remove plain members only, never owners
 * or other admins.
 */
export function canRemoveMember(actor: { userId: string; role: string }, target: { userId: string; role: string }): boolean {
  if (actor.userId === target.userId) return true;
  const actorRole = toRole(actor.role);
  return actorRole === 'owner' || (actorRole === 'admin' && toRole(target.role) === 'member');
}
