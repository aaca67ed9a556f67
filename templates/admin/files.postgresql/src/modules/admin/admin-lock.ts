import type { AppContext } from '../../context.js';
import { splitSchema } from '../../db/postgres-url.js';
import { Prisma } from '../../generated/prisma/client.js';

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/** The AdminRole table, in the schema DATABASE_URL names with ?schema= (raw SQL is not qualified by Prisma). */
function adminRoleTable(databaseUrl: string): Prisma.Sql {
  const { schema } = splitSchema(databaseUrl);
  return Prisma.raw(schema ? `${quote(schema)}.${quote('AdminRole')}` : quote('AdminRole'));
}

/**
 * Locks every admin's row until the transaction ends (SELECT … FOR UPDATE). Every change that must
 * leave the app an admin takes this lock first, so two admins demoting each other at the same
 * moment run one after the other, and the second sees that it would leave none.
 */
export async function lockAdmins(ctx: Pick<AppContext, 'config'>, tx: Prisma.TransactionClient): Promise<void> {
  await tx.$queryRaw`SELECT "userId" FROM ${adminRoleTable(ctx.config.DATABASE_URL)} FOR UPDATE`;
}
