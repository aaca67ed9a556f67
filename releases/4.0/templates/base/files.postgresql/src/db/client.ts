import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { splitSchema } from './postgres-url.js';

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

export function createPrismaClient(url: string): PrismaClient {
  const { connectionString, schema } = splitSchema(url);
  if (!schema) return new PrismaClient({ adapter: new PrismaPg({ connectionString, ...timeouts }) });
  // Prisma's own queries name the schema; hand-written SQL ($queryRaw) finds it on the search path.
  const searchPath = `-c search_path="${schema.replaceAll('"', '""')}"`;
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, options: searchPath, ...timeouts }, { schema }) });
}
