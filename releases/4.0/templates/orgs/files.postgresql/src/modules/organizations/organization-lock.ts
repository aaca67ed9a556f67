import type { AppContext } from '../../context.js';
import { splitSchema } from '../../db/postgres-url.js';
import { Prisma } from '../../generated/prisma/client.js';

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/** The Organization table, in the schema DATABASE_URL names with ?schema= (raw SQL is not qualified by Prisma). */
function organizationTable(databaseUrl: string): Prisma.Sql {
  const { schema } = splitSchema(databaseUrl);
  return Prisma.raw(schema ? `${quote(schema)}.${quote('Organization')}` : quote('Organization'));
}

/**
 * Locks the organization's row until the transaction ends (SELECT … FOR UPDATE). Every change
 * that must leave the organization an owner takes this lock first, so for one organization they
 * run one after the other, and each one reads what the previous one committed.
 */
export async function lockOrganization(ctx: AppContext, tx: Prisma.TransactionClient, organizationId: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM ${organizationTable(ctx.config.DATABASE_URL)} WHERE "id" = ${organizationId} FOR UPDATE`;
}
