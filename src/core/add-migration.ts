import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR, migrationTimestamp, moduleMigrationSql } from './compose-migrations.js';
import type { Database, LoadedModule } from './manifest.js';

/** The newest migration folder's timestamp prefix in the app, if any. */
function latestTimestamp(appDir: string): string | undefined {
  const dir = path.join(appDir, MIGRATIONS_DIR);
  if (!existsSync(dir)) return undefined;
  const stamps = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d{14}_/.test(entry.name))
    .map((entry) => entry.name.slice(0, 14))
    .sort();
  return stamps.at(-1);
}

function fromTimestamp(stamp: string): Date {
  const [y, mo, d, h, mi, s] = [stamp.slice(0, 4), stamp.slice(4, 6), stamp.slice(6, 8), stamp.slice(8, 10), stamp.slice(10, 12), stamp.slice(12, 14)];
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

/** The timestamp of a new migration folder: now, or one second after the app's newest when the clock is behind. */
export function nextMigrationStamp(appDir: string, now: Date): string {
  const latest = latestTimestamp(appDir);
  return latest && migrationTimestamp(now) <= latest ? migrationTimestamp(new Date(fromTimestamp(latest).getTime() + 1000)) : migrationTimestamp(now);
}

/** The order in which Prisma's schema engine writes the kinds of statement of one migration. */
const STATEMENT_KINDS = ['CreateSchema', 'CreateEnum', 'CreateTable', 'CreateIndex', 'AddForeignKey'];

/**
 * The added modules' SQL as one migration. Each module's SQL is the schema engine's diff from the
 * schema without it to the schema with it; the engine writes a diff of several modules kind by
 * kind (every table, then every index, then every foreign key), each kind in schema order, so the
 * modules' "-- <Kind>" blocks are sorted by kind, keeping module order within a kind.
 * (test/integration/add-migration.test.ts compares it with the engine's own diff.) A block of
 * another kind (an altered table) keeps the modules' order unchanged.
 */
function combinedSql(parts: string[]): string {
  const blocks = parts.flatMap((sql) => sql.trim().split(/\n\n(?=-- )/));
  const kinds = blocks.map((block) => STATEMENT_KINDS.indexOf(/^-- (\w+)/.exec(block)?.[1] ?? ''));
  if (kinds.includes(-1)) return `${parts.map((sql) => sql.trimEnd()).join('\n\n')}\n`;
  const sorted = blocks.map((block, index) => ({ block, index, kind: kinds[index]! })).sort((a, b) => a.kind - b.kind || a.index - b.index);
  return `${sorted.map(({ block }) => block).join('\n\n')}\n`;
}

/**
 * One new migration folder with the tables of every added module: what `prisma migrate dev` makes
 * for the same change. Its name sorts after every migration already in the app; none of those is
 * touched.
 */
export function addMigration(appDir: string, added: LoadedModule[], db: Database, now: Date) {
  const parts = added.flatMap((module) => {
    const sql = moduleMigrationSql(module, db);
    return sql === undefined ? [] : [{ id: module.manifest.id, sql }];
  });
  if (parts.length === 0) return undefined;
  const name = `${nextMigrationStamp(appDir, now)}_add_${parts.map((part) => part.id.replace(/-/g, '_')).join('_')}`;
  return {
    file: `${MIGRATIONS_DIR}/${name}/migration.sql`,
    sql: combinedSql(parts.map((part) => part.sql)),
    modules: parts.map((part) => part.id),
  };
}
