import { z } from 'zod';
import { pageQuery } from '../../http/pagination.js';

const emptyAsMissing = (value: unknown) => (value === '' ? undefined : value);

/** ?query=&role=&banned= of the user search, and the page. */
export const userSearchQuery = pageQuery.extend({
  query: z.preprocess(emptyAsMissing, z.string({ error: 'query must be a string' }).trim().max(100, 'query is too long').optional()),
  role: z.preprocess(emptyAsMissing, z.enum(['user', 'admin'], { error: 'role must be user or admin' }).optional()),
  banned: z.preprocess(
    emptyAsMissing,
    z
      .enum(['true', 'false'], { error: 'banned must be true or false' })
      .transform((value) => value === 'true')
      .optional(),
  ),
});

/** Why: kept for the admins (a ban's reason is never shown to the user). */
const reason = z
  .string({ error: 'reason is required: say why, for the other admins' })
  .trim()
  .min(1, 'reason is required: say why, for the other admins')
  .max(500, 'reason must be at most 500 characters');

export const banBody = z.object({
  reason,
  expiresInHours: z
    .number({ error: 'expiresInHours must be a number of hours' })
    .int('expiresInHours must be a whole number')
    .min(1, 'expiresInHours must be at least 1')
    .max(24 * 366 * 10, 'expiresInHours must be at most ten years; leave it out for a ban without an end')
    .optional(),
});

export const roleBody = z.object({ role: z.enum(['user', 'admin'], { error: 'role must be user or admin' }) });

export const impersonateBody = z.object({ reason });

export const deleteUserBody = z.object({
  deleteSoleOwnedOrganizations: z.boolean({ error: 'deleteSoleOwnedOrganizations must be true or false' }).optional(),
});
