import type { AppContext } from '../../context.js';
import type { Prisma } from '../../generated/prisma/client.js';

/**
 * Nothing to lock on SQLite: the database has one writer at a time and the driver adapter runs
 * this app's transactions one after the other, so a transaction already sees every change that
 * committed before it and nothing can commit in between.
 */
export async function lockOrganization(_ctx: AppContext, _tx: Prisma.TransactionClient, _organizationId: string): Promise<void> {}
