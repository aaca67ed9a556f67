import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaClient } from '../generated/prisma/client.js';

/** SQLite through libSQL: its native binaries come as npm packages, so installing needs no compiler. */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaLibSql({ url }) });
}
