import { z } from 'zod';
import { pageQuery } from '../../http/pagination.js';

const emptyAsMissing = (value: unknown) => (value === '' ? undefined : value);
const instant = (name: string) =>
  z.preprocess(emptyAsMissing, z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date and time, e.g. 2026-01-31T00:00:00Z` }).transform((value) => new Date(value)).optional());

/** ?action=, ?since= and ?until= (inclusive), and the page (?limit=, ?cursor=). */
export const auditQuery = pageQuery.extend({
  action: z.preprocess(emptyAsMissing, z.string({ error: 'action must be a string' }).regex(/^[a-z_]+\.[a-z_]+$/, 'action must be an action name such as auth.signed_in').optional()),
  since: instant('since'),
  until: instant('until'),
  // A place in the chain (seq, a 32-bit column): a larger number is no cursor the API gave out.
  cursor: z.preprocess(
    emptyAsMissing,
    z.coerce.number({ error: 'cursor must be the nextCursor of an earlier page' }).int().positive().max(2_147_483_647, 'cursor must be the nextCursor of an earlier page').optional(),
  ),
});

/** The admin's filters on top: who acted, on whom, in which organization. */
export const adminAuditQuery = auditQuery.extend({
  actorId: z.preprocess(emptyAsMissing, z.string().max(100).optional()),
  targetId: z.preprocess(emptyAsMissing, z.string().max(100).optional()),
  organizationId: z.preprocess(emptyAsMissing, z.string().max(100).optional()),
});

export type AuditQuery = z.infer<typeof auditQuery>;
