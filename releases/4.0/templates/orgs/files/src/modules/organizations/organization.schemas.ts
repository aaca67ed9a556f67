import { z } from 'zod';
import { displayName } from '../auth/display-name.js';
import { emailAddress } from '../auth/email-address.js';
import { INVITABLE_ROLES, ROLES } from './roles.js';
import { slug } from './slug.js';

/** The same rules as a person's name: one line, no control or bidirectional-override characters. */
const name = displayName.min(1, 'name is required');

/** Empty clears the description. */
const description = z
  .string({ error: 'description must be a string' })
  .trim()
  .max(500, 'description must be at most 500 characters')
  .transform((value) => value || null)
  .nullable();

export const createOrganizationBody = z.object({
  name,
  slug: slug.optional(),
  description: description.optional(),
});

export const updateOrganizationBody = z.object({
  name: name.optional(),
  slug: slug.optional(),
  description: description.optional(),
});

export const inviteBody = z.object({
  email: emailAddress,
  role: z
    .enum(INVITABLE_ROLES, { error: 'role must be admin or member (owners are made by promoting a member)' })
    .default('member'),
  /** Re-send a pending invite: a new link and a new expiry; the old link stops working. */
  resend: z.boolean({ error: 'resend must be true or false' }).default(false),
});

export const changeRoleBody = z.object({
  role: z.enum(ROLES, { error: 'role must be owner, admin or member' }),
});

export type CreateOrganizationInput = z.infer<typeof createOrganizationBody>;
export type UpdateOrganizationInput = z.infer<typeof updateOrganizationBody>;
export type InviteInput = z.infer<typeof inviteBody>;
