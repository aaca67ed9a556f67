import type { Config } from '@libsql/client';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaClient } from '../generated/prisma/client.js';
import { SqliteConnection, sqlitePath } from './sqlite-connection.js';
import { SqlReads, type AdapterQueryable } from './sql-reads.js';

/**
 * Prisma's libSQL adapter on our own connection (sqlite-connection.ts), made once: Prisma and the
 * hot paths' SQL reads (sql-reads.ts) share it, so there is one connection and one lock.
 */
class SqliteAdapterFactory extends PrismaLibSql {
  #adapter: ReturnType<PrismaLibSql['connect']> | undefined;

  override createClient(config: Config) {
    return new SqliteConnection(sqlitePath(config.url)).asClient();
  }

  override connect(): ReturnType<PrismaLibSql['connect']> {
    this.#adapter ??= super.connect().then((adapter) => {
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = () => {
        this.#adapter = undefined;
        return dispose();
      };
      return adapter;
    });
    return this.#adapter;
  }
}

export interface Database {
  prisma: PrismaClient;
  sql: SqlReads;
}

/** SQLite through libSQL: its native binaries come as npm packages, so installing needs no compiler. */
export function createDatabase(url: string): Database {
  const factory = new SqliteAdapterFactory({ url });
  const sql = new SqlReads(() => factory.connect() as Promise<AdapterQueryable>, {
    placeholder: () => '?',
    table: (name) => `"${name}"`,
  });
  return { prisma: new PrismaClient({ adapter: factory }), sql };
}
