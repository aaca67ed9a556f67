import type { Client, Config } from '@libsql/client';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaClient } from '../generated/prisma/client.js';
import { reconnectingAfterBusy } from './sqlite-busy.js';

/** Prisma's libSQL adapter, on a client that recovers from SQLITE_BUSY (sqlite-busy.ts says why). */
class SqliteAdapter extends PrismaLibSql {
  override createClient(config: Config): Client {
    return reconnectingAfterBusy(super.createClient(config));
  }
}

/**
 * SQLite through Prisma's libSQL adapter: its native binaries come as npm packages, so installing
 * needs no compiler. The adapter runs one transaction at a time; other queries wait for it.
 *
 * intMode 'bigint': libSQL hands integers over as bigints, so a BigInt column (or a $queryRaw
 * result) beyond 2^53 reads back exactly instead of failing; Prisma turns Int columns into numbers.
 */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new SqliteAdapter({ url, intMode: 'bigint' }) });
}
