// npm run db:migration -- <name>
// Writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that takes a database built
// from the committed migrations to prisma/schema.prisma. `prisma migrate diff` computes it (what
// `prisma migrate dev --create-only` writes, without opening your database); this script names the
// folder and leaves it out when nothing changed. Review the file, then apply it with `npm run db:migrate`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { withShadowDatabase } from './shadow-database.js';

const MIGRATIONS = 'prisma/migrations';

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

// prisma.config.ts passes SHADOW_DATABASE_URL on as the datasource's shadowDatabaseUrl.
const prismaCli = createRequire(import.meta.url).resolve('prisma/build/index.js');
const diff = await withShadowDatabase((shadowDatabaseUrl) =>
  spawnSync(
    process.execPath,
    [prismaCli, 'migrate', 'diff', '--from-migrations', MIGRATIONS, '--to-schema', 'prisma/schema.prisma', '--script'],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SHADOW_DATABASE_URL: shadowDatabaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    },
  ),
).catch((error: Error) => fail(`Could not make the migration: ${error.message}`));
// A script always has a line, "-- This is an empty migration." at least: no output is a failure too.
if (diff.status !== 0 || !diff.stdout.trim()) {
  fail('Could not make the migration: prisma migrate diff failed (its message is above). Offline? See "Migrations, online and offline" in README.md.');
}

if (!diff.stdout.split('\n').some((line) => line.trim() && !line.startsWith('--'))) {
  console.log('No changes: prisma/schema.prisma matches the committed migrations, so no migration was made.');
} else {
  const folder = folderName(name, folders);
  mkdirSync(path.join(MIGRATIONS, folder));
  writeFileSync(path.join(MIGRATIONS, folder, 'migration.sql'), `${diff.stdout.trimEnd()}\n`);
  console.log(`Created ${MIGRATIONS}/${folder}/migration.sql. Review it, then apply it with: npm run db:migrate`);
}
