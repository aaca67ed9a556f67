import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import { PrismaClient } from '../generated/prisma/client.js';
import { SqlReads, type AdapterQueryable, type SqlDialect } from './sql-reads.js';

/** The app's database: Prisma for everything, and the hot paths' SQL reads on the same adapter. */
export interface Database {
  prisma: PrismaClient;
  sql: SqlReads;
}

/**
 * Prisma and the SQL reads over one adapter from `factory`: one SQLite connection and its lock, or
 * one PostgreSQL pool. The factory hands out the adapter it made until Prisma disposes of it
 * ($disconnect); the next connect makes a new one.
 */
export function databaseOn(factory: SqlDriverAdapterFactory, dialect: SqlDialect): Database {
  const connect = factory.connect.bind(factory);
  let adapter: ReturnType<typeof connect> | undefined;
  factory.connect = () => {
    adapter ??= connect().then((connected) => {
      const dispose = connected.dispose.bind(connected);
      connected.dispose = () => {
        adapter = undefined;
        return dispose();
      };
      return connected;
    });
    return adapter;
  };
  return { prisma: new PrismaClient({ adapter: factory }), sql: new SqlReads(() => factory.connect() as Promise<AdapterQueryable>, dialect) };
}
