import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { splitSchema } from '../src/db/postgres-url.js';

/**
 * The database db:migration replays the committed migrations on (Prisma's shadow database):
 * SHADOW_DATABASE_URL when you set it (for a server where your user cannot create databases), else a
 * scratch database made on the DATABASE_URL server for this one run and dropped afterwards, so that
 * user needs the CREATEDB privilege, as for `prisma migrate dev`.
 */
export async function withShadowDatabase<T>(run: (shadowDatabaseUrl: string) => T): Promise<T> {
  if (process.env.SHADOW_DATABASE_URL) return run(process.env.SHADOW_DATABASE_URL);
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set. Copy .env.example to .env or export DATABASE_URL.');
  const server = splitSchema(process.env.DATABASE_URL).connectionString;
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  const name = `prisma_migrate_shadow_db_${randomUUID()}`;
  try {
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } catch (error) {
      throw new Error(`${(error as Error).message}: set SHADOW_DATABASE_URL to an empty database db:migration may use.`);
    }
    // Same server and ?schema= as DATABASE_URL: Prisma compares the two in that schema.
    const shadow = new URL(process.env.DATABASE_URL);
    shadow.pathname = `/${name}`;
    return run(shadow.toString());
  } finally {
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
    await client.end();
  }
}
