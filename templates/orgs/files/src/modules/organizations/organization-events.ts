/** An organization, a member or an invite as an account event's target. */
export const organizationRef = (id: string) => ({ type: 'organization', id }) as const;
export const memberRef = (id: string) => ({ type: 'member', id }) as const;
export const inviteRef = (id: string) => ({ type: 'invite', id }) as const;
