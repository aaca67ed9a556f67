/**
 * Writes templates/<id>/migrations/<db>.sql for every built-in module that has a Prisma schema
 * fragment: the schema engine's diff from the composed schema of base + the module's transitive
 * requirements (without the module) to the same selection with the module. Base is diffed from an
 * empty database.
 *
 *   npx tsx scripts/build-migrations.ts           write the files
 *   npx tsx scripts/build-migrations.ts --check   exit 1 if any file is missing or stale
 *
 * Runs offline with Prisma's WebAssembly schema engine (see test/helpers/schema-engine.ts).
 * Databases: sqlite and postgresql. The WebAssembly engine has no MySQL connector, so mysql.sql
 * files are not generated here.
 *
 * The engine needs a live connection of the right kind: a throwaway SQLite file and a throwaway
 * PostgreSQL schema (GATEKIT_TEST_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/test),
 * both removed afterwards. Diffs between two datamodels do not depend on what that database holds.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeSchema } from '../src/core/compose-schema.js';
import type { Database, LoadedModule } from '../src/core/manifest.js';
import { createRegistry, loadBuiltinModules, type ModuleRegistry } from '../src/core/registry.js';
import { buildRenderContext } from '../src/core/render-context.js';
import {
  createTempPgSchema,
  diffSchemas,
  openSchemaEngine,
  type OpenSchemaEngine,
} from '../test/helpers/schema-engine.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASE = 'base';
export const MIGRATION_DATABASES = ['sqlite', 'postgresql'] as const satisfies readonly Database[];
type MigrationDatabase = (typeof MIGRATION_DATABASES)[number];

const generatorVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

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
  const context = buildRenderContext(modules, { projectName: 'gatekit-migrations', db, generatorVersion });
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

/** Computes every migration file without writing anything. */
export async function buildMigrations(registry: ModuleRegistry): Promise<MigrationFile[]> {
  const withSchema = [...registry.modules.values()]
    .filter((module) => module.manifest.schema)
    .sort((a, b) => (a.manifest.id === BASE ? -1 : b.manifest.id === BASE ? 1 : a.manifest.id.localeCompare(b.manifest.id)));
  const files: MigrationFile[] = [];
  const sqliteDir = mkdtempSync(path.join(tmpdir(), 'gatekit-migrations-'));
  const pgSchema = await createTempPgSchema(undefined, 'gatekit_migrations');
  try {
    for (const db of MIGRATION_DATABASES) {
      const url = db === 'sqlite' ? `file:${path.join(sqliteDir, 'engine.db')}` : pgSchema.url;
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
          if (db === 'postgresql') sql = portablePostgres(sql, pgSchema.schema);
          const folder = path.join(module.dir, module.manifest.migrations ?? 'migrations');
          files.push({ module: module.manifest.id, db, file: path.join(folder, `${db}.sql`), sql });
        }
      } finally {
        await engine?.close();
      }
    }
  } finally {
    await pgSchema.drop();
    rmSync(sqliteDir, { recursive: true, force: true });
  }
  return files;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const registry = createRegistry(loadBuiltinModules());
  const files = await buildMigrations(registry);
  const stale: string[] = [];
  for (const { module, file, sql } of files) {
    const relative = path.relative(ROOT, file);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (check) {
      if (current !== sql) stale.push(relative);
      continue;
    }
    if (!registry.modules.get(module)?.manifest.migrations) {
      console.warn(`warning: module '${module}' has a schema but its manifest names no "migrations" folder`);
    }
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, sql);
    console.log(`${current === sql ? 'unchanged' : current === null ? 'created  ' : 'updated  '} ${relative}`);
  }
  if (check) {
    if (stale.length) {
      console.error(`Stale or missing migrations (run npm run migrations:build):\n  ${stale.join('\n  ')}`);
      process.exitCode = 1;
    } else {
      console.log(`All ${files.length} migration files are up to date.`);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
