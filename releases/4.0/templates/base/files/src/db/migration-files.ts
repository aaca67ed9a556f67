import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from '../app-root.js';

export const MIGRATIONS_DIR = path.join(APP_ROOT, 'prisma/migrations');

export interface MigrationFile {
  name: string;
  sql: string;
  /** SHA-256 of the file, as Prisma records it. */
  checksum: string;
}

/** The migration folders in name order, as `prisma migrate deploy` reads them. */
export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((name) => statSync(path.join(dir, name)).isDirectory())
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * The migrations still to apply, given what the database recorded (name -> checksum). A recorded
 * migration whose file changed since is an error: applied migrations are never rewritten.
 */
export function pendingMigrations(applied: Map<string, string>, dir = MIGRATIONS_DIR): MigrationFile[] {
  return readMigrations(dir).filter((migration) => {
    const checksum = applied.get(migration.name);
    if (checksum === undefined) return true;
    if (checksum !== migration.checksum) {
      throw new Error(`Migration ${migration.name} was changed after it was applied. Create a new migration instead.`);
    }
    return false;
  });
}
