import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { splitSchema } from './postgres-url.js';

export function createPrismaClient(url: string): PrismaClient {
  const { connectionString, schema } = splitSchema(url);
  return new PrismaClient({ adapter: new PrismaPg({ connectionString }, schema ? { schema } : undefined) });
}
