// npm run db:migration -- <name>
// Writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that takes a database built
// from the committed migrations to prisma/schema.prisma: what `prisma migrate dev --create-only`
// makes, but offline. It uses Prisma's schema engine compiled to WebAssembly
// (@prisma/schema-engine-wasm), so no native engine is downloaded. Apply it with `npm run db:migrate`.
// The engine's package imports its .wasm file as a module, which Node 20 allows behind
// --experimental-wasm-modules: package.json's db:migration script passes that flag.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SchemaEngine } from '@prisma/schema-engine-wasm';
import { engineAdapter } from './migration-engine.js';

const MIGRATIONS = path.resolve('prisma/migrations');
const SCHEMA = path.resolve('prisma/schema.prisma');

/** Prisma's folder timestamp: UTC, YYYYMMDDHHMMSS. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}

/** A name that sorts after every committed migration, even when the clock is behind the newest. */
function folderName(name: string, existing: string[]): string {
  let stamp = timestamp(new Date());
  const newest = existing.map((folder) => folder.slice(0, 14)).sort().at(-1);
  if (newest && stamp <= newest) {
    const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((start, i) => Number(newest.slice(start, start + (i === 0 ? 4 : 2))));
    stamp = timestamp(new Date(Date.UTC(y!, mo! - 1, d, h, mi, s! + 1)));
  }
  return `${stamp}_${name}`;
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

if (existsSync('.env')) process.loadEnvFile('.env');

// Every word after the script's name (some package managers pass the `--` on): "add posts" -> add_posts.
const name = process.argv
  .slice(2)
  .filter((arg) => arg !== '--')
  .join(' ')
  .toLowerCase()
  .replace(/[^a-z0-9]+/g, '_')
  .replace(/^_+|_+$/g, '');
if (!name) fail('Name the migration: npm run db:migration -- add_posts');

const folders = readdirSync(MIGRATIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const lockfile = path.join(MIGRATIONS, 'migration_lock.toml');
const schema = readFileSync(SCHEMA, 'utf8');

let adapter: ReturnType<typeof engineAdapter>;
try {
  adapter = engineAdapter();
} catch (error) {
  fail((error as Error).message);
}
const engine = await SchemaEngine.new({ datamodels: [[SCHEMA, schema]] }, () => {}, adapter.factory);
try {
  // The engine replays the committed migrations on a scratch database (Prisma's shadow database)
  // and returns the SQL from that database to the schema.
  const { stdout } = await engine.diff({
    from: {
      tag: 'migrations',
      baseDir: MIGRATIONS,
      lockfile: { path: 'migration_lock.toml', content: existsSync(lockfile) ? readFileSync(lockfile, 'utf8') : null },
      shadowDbInitScript: '',
      migrationDirectories: folders.map((folder) => ({
        path: folder,
        migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: readFileSync(path.join(MIGRATIONS, folder, 'migration.sql'), 'utf8') } },
      })),
    },
    to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA, content: schema }] },
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  });
  // With nothing to do the engine answers with one comment line: "-- This is an empty migration."
  const migrationScript = (stdout ?? '').split('\n').some((line) => line.trim() && !line.startsWith('--')) ? stdout : null;
  if (!migrationScript) {
    console.log('No changes: prisma/schema.prisma matches the committed migrations, so no migration was made.');
  } else {
    const folder = folderName(name, folders);
    mkdirSync(path.join(MIGRATIONS, folder));
    writeFileSync(path.join(MIGRATIONS, folder, 'migration.sql'), migrationScript);
    console.log(`Created prisma/migrations/${folder}/migration.sql. Review it, then apply it with: npm run db:migrate`);
  }
} catch (error) {
  console.error(`Could not make the migration: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  engine.free();
  await adapter.close();
}
