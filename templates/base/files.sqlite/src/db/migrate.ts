import { randomUUID } from 'node:crypto';
import { createClient } from '@libsql/client';
import { MIGRATIONS_DIR, pendingMigrations } from './migration-files.js';

/** Prisma's own bookkeeping table, so `prisma migrate deploy` sees what was applied here. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

const RECORD_MIGRATION =
  'INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)';

/**
 * Applies every committed migration (in `dir`) not yet recorded, each in its own transaction. It
 * also puts the database in WAL mode, which the file keeps: readers then never wait for a writer.
 *
 * Foreign keys are off while migrations run, as with `prisma migrate`: Prisma changes a SQLite
 * table it cannot ALTER by copying it, dropping it and renaming the copy into place, and with
 * foreign keys on, dropping `User` would delete every row that refers to it (sessions, passkeys,
 * memberships). SQLite ignores that setting inside a transaction, so it is set on the client's one
 * connection before; each migration then commits only when every reference still holds.
 */
export async function applyMigrations(url: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const client = createClient({ url, concurrency: 1 });
  try {
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute('PRAGMA foreign_keys = OFF');
    await client.execute(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.execute(
      'SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((row) => [String(row.migration_name), String(row.checksum)]));
    const done: string[] = [];
    for (const migration of pendingMigrations(applied, dir)) {
      const startedAt = Date.now();
      const transaction = await client.transaction('write');
      try {
        await transaction.executeMultiple(migration.sql);
        const broken = await transaction.execute('PRAGMA foreign_key_check');
        if (broken.rows.length > 0) throw new Error(`it leaves ${broken.rows.length} row(s) referring to a row that does not exist (PRAGMA foreign_key_check)`);
        await transaction.execute({ sql: RECORD_MIGRATION, args: [randomUUID(), migration.checksum, Date.now(), migration.name, startedAt] });
        await transaction.commit();
      } catch (error) {
        await transaction.rollback();
        throw new Error(`${migration.name}: ${(error as Error).message}`);
      } finally {
        transaction.close();
      }
      done.push(migration.name);
    }
    return done;
  } finally {
    client.close();
  }
}
