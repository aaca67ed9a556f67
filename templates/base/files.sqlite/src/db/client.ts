import type { Config } from '@libsql/client';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { databaseOn, type Database } from './database.js';
import { SqliteConnection, sqlitePath } from './sqlite-connection.js';

/** Prisma's libSQL adapter on our own connection (sqlite-connection.ts explains why). */
class SqliteAdapterFactory extends PrismaLibSql {
  override createClient(config: Config) {
    return new SqliteConnection(sqlitePath(config.url)).asClient();
  }
}

/** SQLite through libSQL: its native binaries come as npm packages, so installing needs no compiler. */
export function createDatabase(url: string): Database {
  return databaseOn(new SqliteAdapterFactory({ url }), { placeholder: () => '?', table: (name) => `"${name}"` });
}
