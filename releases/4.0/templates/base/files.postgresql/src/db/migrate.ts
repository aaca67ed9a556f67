import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { MIGRATIONS_DIR, pendingMigrations } from './migration-files.js';
import { splitSchema } from './postgres-url.js';

/** The advisory lock Prisma itself takes, so two deploys never run migrations at the same time. */
const MIGRATION_LOCK = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Applies every committed migration (in `dir`) not yet recorded, each in its own transaction. */
export async function applyMigrations(url: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const { connectionString, schema } = splitSchema(url);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    if (schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
      await client.query(`SET search_path TO ${quoteIdentifier(schema)}`);
    }
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ name: string; checksum: string }>(
      'SELECT migration_name AS name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((row) => [row.name, row.checksum]));
    const done: string[] = [];
    for (const migration of pendingMigrations(applied, dir)) {
      await client.query('BEGIN');
      try {
        const startedAt = new Date();
        await client.query(migration.sql);
        await client.query(
          'INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)',
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`${migration.name}: ${(error as Error).message}`);
      }
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.end();
  }
}
