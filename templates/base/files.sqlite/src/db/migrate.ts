import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { pendingMigrations } from './migration-files.js';

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

/** file:./dev.db -> ./dev.db (relative paths are relative to the working directory). */
export function sqliteFilePath(url: string): string {
  return url.replace(/^file:/, '').split('?')[0]!;
}

/** Applies every committed migration not yet recorded, each in its own transaction. */
export async function applyMigrations(url: string): Promise<string[]> {
  const db = new Database(sqliteFilePath(url));
  try {
    db.exec(CREATE_MIGRATIONS_TABLE);
    const rows = db
      .prepare('SELECT migration_name AS name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL')
      .all() as { name: string; checksum: string }[];
    const applied = new Map(rows.map((row) => [row.name, row.checksum]));
    const record = db.prepare(
      'INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)',
    );
    const done: string[] = [];
    for (const migration of pendingMigrations(applied)) {
      const startedAt = Date.now();
      db.transaction(() => {
        db.exec(migration.sql);
        record.run(randomUUID(), migration.checksum, Date.now(), migration.name, startedAt);
      })();
      done.push(migration.name);
    }
    return done;
  } finally {
    db.close();
  }
}
