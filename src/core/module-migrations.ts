/**
 * Each module's migration SQL, made by Prisma's own schema engine (WebAssembly, offline): the diff
 * from the composed schema of base + the module's transitive requirements (without the module) to
 * the same selection with the module. Base is diffed from an empty database. Used by
 * scripts/build-migrations.ts for the built-in modules and by `create-gatekit pack check` for a pack.
 *
 * The engine needs a live connection of the right kind: a throwaway SQLite file and a throwaway
 * PostgreSQL schema, both removed afterwards. Diffs between two datamodels do not depend on what
 * that database holds. The WebAssembly engine has no MySQL connector.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { composeSchema } from './compose-schema.js';
import { GENERATOR_VERSION } from './version.js';
import type { Database, LoadedModule } from './manifest.js';
import type { ModuleRegistry } from './registry.js';
import { buildRenderContext } from './render-context.js';
import {
  createTempPgSchema,
  diffSchemas,
  openSchemaEngine,
  type OpenSchemaEngine,
} from './schema-engine.js';

const BASE = 'base';
export const MIGRATION_DATABASES = ['sqlite', 'postgresql'] as const satisfies readonly Database[];
type MigrationDatabase = (typeof MIGRATION_DATABASES)[number];


/** base first, then every module `id` needs (dependencies before dependents), then `id` itself. */
export function selectionFor(registry: ModuleRegistry, id: string): LoadedModule[] {
  const ordered: LoadedModule[] = [];
  const visiting = new Set<string>();
  const visit = (current: string, chain: string[]) => {
    if (ordered.some((module) => module.manifest.id === current)) return;
    if (visiting.has(current)) throw new Error(`Circular requires: ${[...chain, current].join(' -> ')}`);
    const module = registry.modules.get(current);
    if (!module) throw new Error(`Unknown module '${current}' (required by ${chain.at(-1) ?? 'the build'})`);
    visiting.add(current);
    for (const required of module.manifest.requires) visit(required, [...chain, current]);
    visiting.delete(current);
    ordered.push(module);
  };
  visit(BASE, []);
  visit(id, []);
  return ordered;
}

function schemaOf(modules: LoadedModule[], db: Database): string {
  const context = buildRenderContext(modules, { projectName: 'gatekit-migrations', db, generatorVersion: GENERATOR_VERSION });
  return composeSchema(modules, context);
}

/**
 * The engine's from-empty diff starts with `CREATE SCHEMA IF NOT EXISTS "<schema of the
 * connection>"`. Connected to the throwaway schema, that would name it; the committed migration
 * names "public", which is what the engine prints for a plain DATABASE_URL (and what
 * `prisma migrate diff --from-empty` prints on a normal machine).
 */
function portablePostgres(sql: string, throwawaySchema: string): string {
  return sql.split(`CREATE SCHEMA IF NOT EXISTS "${throwawaySchema}";`).join('CREATE SCHEMA IF NOT EXISTS "public";');
}

export interface MigrationFile {
  module: string;
  db: MigrationDatabase;
  file: string;
  sql: string;
}

/**
 * Computes the migration files of `only` (default: every module with a schema) without writing
 * anything. PostgreSQL diffs need a live server (`postgresUrl`, default TEST_POSTGRES_URL).
 */
export async function buildMigrations(
  registry: ModuleRegistry,
  options: { only?: LoadedModule[]; databases?: readonly MigrationDatabase[]; postgresUrl?: string } = {},
): Promise<MigrationFile[]> {
  const databases = options.databases ?? MIGRATION_DATABASES;
  const withSchema = (options.only ?? [...registry.modules.values()])
    .filter((module) => module.manifest.schema)
    .sort((a, b) => (a.manifest.id === BASE ? -1 : b.manifest.id === BASE ? 1 : a.manifest.id.localeCompare(b.manifest.id)));
  const files: MigrationFile[] = [];
  const sqliteDir = mkdtempSync(path.join(tmpdir(), 'gatekit-migrations-'));
  const pgSchema = databases.includes('postgresql') ? await createTempPgSchema(options.postgresUrl, 'gatekit_migrations') : undefined;
  try {
    for (const db of databases) {
      const url = db === 'sqlite' ? `file:${path.join(sqliteDir, 'engine.db')}` : pgSchema!.url;
      const base = registry.modules.get(BASE);
      if (!base) throw new Error("No 'base' module");
      let engine: OpenSchemaEngine | undefined;
      try {
        engine = await openSchemaEngine(db, url, schemaOf([base], db));
        for (const module of withSchema) {
          const selection = selectionFor(registry, module.manifest.id);
          const without = selection.filter((one) => one !== module);
          const before = module.manifest.id === BASE ? null : schemaOf(without, db);
          const after = schemaOf(selection, db);
          let sql: string;
          try {
            sql = await diffSchemas(engine, before, after);
          } catch (error) {
            throw new Error(
              `Prisma rejected the ${db} schema composed for module '${module.manifest.id}' ` +
                `(${selection.map((one) => one.manifest.id).join(' + ')}):\n${(error as Error).message}\n\n--- composed schema ---\n${after}`,
            );
          }
          if (db === 'postgresql') sql = portablePostgres(sql, pgSchema!.schema);
          const folder = path.join(module.dir, module.manifest.migrations ?? 'migrations');
          files.push({ module: module.manifest.id, db, file: path.join(folder, `${db}.sql`), sql });
        }
      } finally {
        await engine?.close();
      }
    }
  } finally {
    await pgSchema?.drop();
    rmSync(sqliteDir, { recursive: true, force: true });
  }
  return files;
}

