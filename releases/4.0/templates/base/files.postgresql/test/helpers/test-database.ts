import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../../src/db/migrate.js';
import { splitSchema } from '../../src/db/postgres-url.js';

/**
 * A new PostgreSQL schema with every migration applied (those in `migrationsDir`, default the
 * app's), in the database of DATABASE_URL (from the environment or .env). Dropped again after the
 * tests, so your own data is never touched.
 */
export async function createTestDatabase(migrationsDir?: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!process.env.DATABASE_URL && existsSync('.env')) process.loadEnvFile('.env');
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('Set DATABASE_URL to a PostgreSQL database for the tests.');
  const schema = `test_${randomUUID().replace(/-/g, '')}`;
  const url = new URL(splitSchema(base).connectionString);
  url.searchParams.set('schema', schema);
  await applyMigrations(url.toString(), migrationsDir);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: splitSchema(base).connectionString });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
