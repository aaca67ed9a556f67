import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaClient } from '../generated/prisma/client.js';

/**
 * SQLite through Prisma's libSQL adapter: its native binaries come as npm packages, so installing
 * needs no compiler. The adapter runs one transaction at a time; other queries wait for it.
 *
 * intMode 'bigint': libSQL hands integers over as bigints, so a BigInt column (or a $queryRaw
 * result) beyond 2^53 reads back exactly instead of failing; Prisma turns Int columns into numbers.
 */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaLibSql({ url, intMode: 'bigint' }) });
}
