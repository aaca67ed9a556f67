import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../prisma/migrations');

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
