import type { AppContext } from '../../context.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { AuditQuery } from './audit-log.schemas.js';
import { toAuditEventView, type AuditEventView } from './audit-views.js';

/**
 * A page of events matching `where` and the query's filters, newest first: a keyset read on the
 * chain's order (seq), so a page costs the same however deep it is. nextCursor is the seq to
 * continue below.
 */
export async function auditPage(
  ctx: AppContext,
  where: Prisma.AuditEventWhereInput,
  query: AuditQuery,
): Promise<{ events: AuditEventView[]; nextCursor: string | null }> {
  const rows = await ctx.prisma.auditEvent.findMany({
    where: {
      AND: [
        where,
        query.action ? { action: query.action } : {},
        query.since || query.until ? { occurredAt: { gte: query.since, lte: query.until } } : {},
        query.cursor ? { seq: { lt: query.cursor } } : {},
      ],
    },
    orderBy: { seq: 'desc' },
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return { events: page.map(toAuditEventView), nextCursor: rows.length > query.limit ? String(page.at(-1)!.seq) : null };
}
