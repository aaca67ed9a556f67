/**
 * Writes templates/<id>/migrations/<db>.sql for every built-in module that has a Prisma schema
 * fragment: the schema engine's diff from the composed schema of base + the module's transitive
 * requirements (without the module) to the same selection with the module. Base is diffed from an
 * empty database.
 *
 *   npx tsx scripts/build-migrations.ts           write the files
 *   npx tsx scripts/build-migrations.ts --check   exit 1 if any file is missing or stale
 *
 * Runs offline with Prisma's WebAssembly schema engine (see src/core/schema-engine.ts and src/core/module-migrations.ts).
 * Databases: sqlite and postgresql. The WebAssembly engine has no MySQL connector, so mysql.sql
 * files are not generated here.
 *
 * The engine needs a live connection of the right kind: a throwaway SQLite file and a throwaway
 * PostgreSQL schema (GATEKIT_TEST_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/test),
 * both removed afterwards. Diffs between two datamodels do not depend on what that database holds.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMigrations } from '../src/core/module-migrations.js';
import { createRegistry, loadBuiltinModules } from '../src/core/registry.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
