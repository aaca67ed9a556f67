/**
 * The one migration of an upgrade (docs/upgrade.md): Prisma's schema engine diffs the app's schema
 * as it is to the schema the upgrade leaves, and each module's data steps for the releases passed
 * follow. The engine is the WebAssembly one (`@prisma/schema-engine-wasm`, a dependency of
 * create-gatekit), loaded from the app's node_modules when it has it (release 4.0 apps, for their
 * `npm run db:migration`), else from create-gatekit's own. PostgreSQL's driver comes from the app.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MIGRATIONS_DIR } from './compose-migrations.js';
import { loadEngineModule } from './engine-module.js';
import { UsageError } from './errors.js';
import type { Database, LoadedModule } from './manifest.js';
import { maskPassword } from './postgres-server.js';
import { parsePostgresUrl } from './postgres-url.js';
import { compareTags } from './releases.js';

const EMPTY_MIGRATION = '-- This is an empty migration.';
const ENGINE = '@prisma/schema-engine-wasm';
const ADAPTER_UTILS = '@prisma/driver-adapter-utils';

/** Where the engine's packages are resolved from: the app's node_modules first, then create-gatekit's own. */
function resolvers(appDir: string): { from: string; require: NodeJS.Require }[] {
  return [
    { from: `the app's node_modules`, require: createRequire(path.join(appDir, 'package.json')) },
    { from: `create-gatekit's own dependencies`, require: createRequire(import.meta.url) },
  ];
}

/** Imports a package from the first of `requires` that resolves it (its CommonJS entry: named exports, or the default object). */
async function importResolved<T>(requires: NodeJS.Require | NodeJS.Require[], name: string): Promise<T> {
  const candidates = Array.isArray(requires) ? requires : [requires];
  const file = candidates.flatMap((require) => {
    try {
      return [require.resolve(name)];
    } catch {
      return [];
    }
  })[0];
  if (!file) throw new UsageError(`upgrade needs the package ${name}, which is not installed: run the app's install (npm install) first, then the command again. Nothing was written.`);
  const loaded = (await import(pathToFileURL(file).href)) as T & { default?: T };
  return (loaded.default ?? loaded) as T;
}

interface AdapterUtils {
  bindMigrationAwareSqlAdapterFactory: (factory: unknown) => unknown;
  mockMigrationAwareAdapterFactory: (provider: 'sqlite' | 'postgres') => unknown;
}

/** A migration-aware adapter factory for the engine, and how to let its connections go. */
interface EngineConnection {
  factory: unknown;
  close(): Promise<void>;
}

/**
 * What the engine connects to. Diffing two schemas reads nothing from a database: SQLite needs none
 * at all (Prisma's own placeholder adapter), PostgreSQL asks the server its version once, so it
 * connects to the app's DATABASE_URL and only reads.
 */
async function connect(requires: NodeJS.Require[], utils: AdapterUtils, db: Database, databaseUrl: string | undefined): Promise<EngineConnection> {
  if (db === 'sqlite') return { factory: utils.mockMigrationAwareAdapterFactory('sqlite'), close: async () => {} };
  if (db !== 'postgresql') throw new UsageError(`upgrade makes migrations for SQLite and PostgreSQL; Prisma's WebAssembly schema engine has no ${db} connector.`);
  if (!databaseUrl) {
    throw new UsageError(
      "upgrade computes the schema change with Prisma's schema engine, which asks the PostgreSQL server of DATABASE_URL for its version; DATABASE_URL is set neither in the environment nor in .env. Set it, then run the command again. Nothing was written.",
    );
  }
  const pg = await importResolved<{ Pool: new (options: object) => { end(): Promise<void> } }>(requires, 'pg');
  const { PrismaPg } = await importResolved<{ PrismaPg: new (pool: unknown, options: { schema: string }) => unknown }>(requires, '@prisma/adapter-pg');
  const { connectionString, schema } = parsePostgresUrl(databaseUrl);
  const pool = new pg.Pool({ connectionString, options: `-c search_path="${schema.replace(/"/g, '""')}"`, connectionTimeoutMillis: 10_000 });
  return { factory: new PrismaPg(pool, { schema }), close: () => pool.end() };
}

/**
 * The SQL that turns a database made for `fromSchema` into one for `toSchema`, as `prisma migrate
 * diff --from-schema --to-schema --script` prints it; '' when nothing changes.
 */
export async function diffAppSchemas(options: { appDir: string; db: Database; databaseUrl?: string; fromSchema: string; toSchema: string }): Promise<string> {
  const found = resolvers(options.appDir).find(({ require }) => {
    try {
      require.resolve(`${ENGINE}/schema_engine_bg`);
      require.resolve(ADAPTER_UTILS);
      return true;
    } catch {
      return false;
    }
  });
  if (!found) {
    throw new UsageError(
      `upgrade computes the schema change with Prisma's schema engine (${ENGINE}), a dependency of create-gatekit that is not installed. Reinstall create-gatekit, then run the command again. Nothing was written.`,
    );
  }
  const engineModule = await loadEngineModule(found.require.resolve(`${ENGINE}/schema_engine_bg`));
  const utils = await importResolved<AdapterUtils>(found.require, ADAPTER_UTILS);
  const connection = await connect(resolvers(options.appDir).map(({ require }) => require), utils, options.db, options.databaseUrl);
  const datamodel = (content: string) => ({ tag: 'schemaDatamodel' as const, files: [{ path: 'schema.prisma', content }] });
  try {
    const engine = await engineModule.SchemaEngine.new(
      { datamodels: [['schema.prisma', options.fromSchema]] },
      () => {},
      utils.bindMigrationAwareSqlAdapterFactory(connection.factory) as Parameters<typeof engineModule.SchemaEngine.new>[2],
    );
    try {
      const result = await engine.diff({ from: datamodel(options.fromSchema), to: datamodel(options.toSchema), script: true, exitCode: null, filters: { externalTables: [], externalEnums: [] } });
      const sql = (result.stdout ?? '').replace(EMPTY_MIGRATION, '').trim();
      return sql ? `${sql}\n` : '';
    } finally {
      engine.free();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const where = options.db === 'postgresql' && options.databaseUrl ? ` (PostgreSQL at ${maskPassword(options.databaseUrl)})` : '';
    throw new UsageError(
      `Prisma's schema engine (from ${found.from}) could not compute the schema change${where}: ${(error as Error).message.split('\n')[0]}. Check that the database server runs and that prisma/schema.prisma is valid, then run the command again. Nothing was written.`,
    );
  } finally {
    await connection.close();
  }
}

/**
 * SQLite rebuilds a table it cannot ALTER (Prisma's "RedefineTables": copy, drop, rename), which
 * needs foreign keys off, and SQLite ignores the engine's own `PRAGMA foreign_keys=OFF` inside the
 * transaction a migration runner opens. Release 4.1's db:migrate turns them off first; an older
 * runner would let the drop of `User` delete every session and passkey. This line makes such a run
 * fail (and roll back) before anything is dropped.
 */
const FOREIGN_KEYS_OFF_GUARD = [
  '-- Gatekit: the tables below are rebuilt, which needs foreign keys off (npm run db:migrate turns them',
  '-- off since release 4.1). With them on, dropping a table would delete the rows that refer to it,',
  '-- so this stops the migration first.',
  'CREATE TEMP TABLE "gatekit_foreign_keys" ("enabled" INTEGER NOT NULL CONSTRAINT "run this migration with foreign keys off: npm run db:migrate" CHECK ("enabled" = 0));',
  'INSERT INTO "gatekit_foreign_keys" SELECT "foreign_keys" FROM pragma_foreign_keys;',
  'DROP TABLE "gatekit_foreign_keys";',
].join('\n');

function guardRebuilds(sql: string, db: Database): string {
  if (db !== 'sqlite') return sql;
  return sql.replace(/^PRAGMA foreign_keys=OFF;$/m, (line) => `${line}\n${FOREIGN_KEYS_OFF_GUARD}`);
}

/** The data steps of `modules` for the releases after `from` up to `to`, in release order, for `db`. */
export function dataSteps(modules: LoadedModule[], from: string, to: string, db: Database): { release: string; module: string; sql: string }[] {
  const steps = modules.flatMap((module) =>
    Object.entries(module.manifest.upgrades)
      .filter(([release]) => compareTags(release, from) > 0 && compareTags(release, to) <= 0)
      .flatMap(([release, folder]) => {
        const file = path.join(module.dir, folder, `${db}.sql`);
        return existsSync(file) ? [{ release, module: module.manifest.id, sql: readFileSync(file, 'utf8').trim() }] : [];
      }),
  );
  return steps.sort((a, b) => compareTags(a.release, b.release));
}

/** The upgrade's migration file: the engine's schema change (guarded on SQLite), then the data steps. */
export function upgradeMigrationSql(schemaChange: string, steps: { release: string; module: string; sql: string }[], db: Database): string | undefined {
  const parts = [
    ...(schemaChange.trim() ? [guardRebuilds(schemaChange.trim(), db)] : []),
    ...steps.map((step) => `-- Data step of release ${step.release} (module ${step.module})\n${step.sql}`),
  ];
  return parts.length > 0 ? `${parts.join('\n\n')}\n` : undefined;
}

/** prisma/migrations/<stamp>_upgrade_4_0_to_4_1/migration.sql */
export function upgradeMigrationFile(stamp: string, from: string, to: string): string {
  return `${MIGRATIONS_DIR}/${stamp}_upgrade_${from.replace('.', '_')}_to_${to.replace('.', '_')}/migration.sql`;
}
