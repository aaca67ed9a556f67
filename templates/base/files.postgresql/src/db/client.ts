import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { splitSchema } from './postgres-url.js';
import { SqlReads, type AdapterQueryable } from './sql-reads.js';

/**
 * Every wait on the server is bounded, so an outage answers 503 within seconds instead of hanging:
 * opening a connection (a server that is down or frozen), a query the server never answers, and a
 * statement the server runs for too long.
 */
const timeouts = {
  connectionTimeoutMillis: 5000,
  statement_timeout: 5000,
  // A little longer than statement_timeout, so a slow statement is cancelled by the server (the
  // connection stays usable) and only a silent server meets this one.
  query_timeout: 6000,
  keepAlive: true,
};

/** Prisma's adapter, made once: Prisma and the hot paths' SQL reads (sql-reads.ts) share its pool. */
class PostgresAdapterFactory extends PrismaPg {
  #adapter: ReturnType<PrismaPg['connect']> | undefined;

  override connect(): ReturnType<PrismaPg['connect']> {
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

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export function createDatabase(url: string): Database {
  const { connectionString, schema } = splitSchema(url);
  const factory = new PostgresAdapterFactory({ connectionString, ...timeouts }, schema ? { schema } : undefined);
  const sql = new SqlReads(() => factory.connect() as Promise<AdapterQueryable>, {
    placeholder: (position) => `$${position}`,
    table: (name) => (schema ? `${quote(schema)}.${quote(name)}` : quote(name)),
  });
  return { prisma: new PrismaClient({ adapter: factory }), sql };
}
