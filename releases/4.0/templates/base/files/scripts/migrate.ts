// Applies the committed migrations in prisma/migrations to DATABASE_URL.
// Works offline (no Prisma engine download) and records each migration in Prisma's own
// _prisma_migrations table, so `prisma migrate deploy` on a connected machine agrees with it.
import { existsSync } from 'node:fs';
import { applyMigrations } from '../src/db/migrate.js';

if (existsSync('.env')) process.loadEnvFile('.env');

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set. Copy .env.example to .env or export DATABASE_URL.');
  process.exit(1);
}

try {
  const applied = await applyMigrations(url);
  console.log(applied.length > 0 ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date.');
} catch (error) {
  console.error(`Migration failed: ${(error as Error).message}`);
  process.exit(1);
}
