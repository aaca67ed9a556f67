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
 * How long a query waits for another process's write lock (a second instance, a script) before it
 * fails with SQLITE_BUSY. libSQL waits inside the query, which holds this process's event loop,
 * so the wait is kept short: another instance's transactions take milliseconds.
 */
const BUSY_TIMEOUT_MS = 2000;

/**
 * SQLite through Prisma's libSQL adapter: its native binaries come as npm packages, so installing
 * needs no compiler. The adapter runs one transaction at a time; other queries wait for it.
 *
 * The database file is in WAL mode (set by db:migrate, see migrate.ts), so reads never wait for a
 * writer; with the busy timeout, writes of several processes (two instances, a script) queue for
 * the lock instead of failing at once.
 *
 * intMode 'bigint': libSQL hands integers over as bigints, so a BigInt column (or a $queryRaw
 * result) beyond 2^53 reads back exactly instead of failing; Prisma turns Int columns into numbers.
 */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new SqliteAdapter({ url, intMode: 'bigint', timeout: BUSY_TIMEOUT_MS }) });
}
