import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../src/app-root.js';
import { createPrismaClient } from '../src/db/client.js';
import { Prisma } from '../src/generated/prisma/client.js';
import { createTestDatabase } from './helpers/test-database.js';

/**
 * `npm run db:migration` on a copy of prisma/, so the app's own schema and migrations are never
 * changed: the copy sits next to links to this app's package.json, Prisma config, scripts, sources
 * and node_modules. It runs Prisma's schema engine (`prisma migrate diff`), which Prisma downloads
 * on first use or takes from PRISMA_SCHEMA_ENGINE_BINARY.
 */
let work: string;
const migrations = () => path.join(work, 'prisma/migrations');
const folders = () => readdirSync(migrations()).filter((name) => !name.endsWith('.toml')).sort();

function dbMigration(name: string) {
  const result = spawnSync('npm', ['run', '--silent', 'db:migration', '--', name], {
    cwd: work,
    encoding: 'utf8',
    env: process.env,
    shell: process.platform === 'win32',
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'db-migration-test-'));
  cpSync(path.join(APP_ROOT, 'prisma'), path.join(work, 'prisma'), { recursive: true });
  for (const link of ['package.json', 'prisma.config.ts', 'node_modules', 'scripts', 'src']) symlinkSync(path.join(APP_ROOT, link), path.join(work, link));
  // DATABASE_URL, for PostgreSQL: the migrations are replayed in a scratch database on that server.
  if (!process.env.DATABASE_URL && existsSync(path.join(APP_ROOT, '.env'))) process.loadEnvFile(path.join(APP_ROOT, '.env'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('npm run db:migration', () => {
  it('says there is nothing to do while the schema matches the migrations, and makes no folder', () => {
    const before = folders();
    const result = dbMigration('nothing_yet');
    expect(result.output).toContain('No changes');
    expect(result.status).toBe(0);
    expect(folders()).toEqual(before);
  }, 120_000);

  it('asks for a name', () => {
    const result = dbMigration('');
    expect(result.output).toContain('Name the migration');
    expect(result.status).toBe(1);
  }, 120_000);

  it('makes the migration for a new model, which migrates a database whose table then works', async () => {
    const before = folders();
    appendFileSync(
      path.join(work, 'prisma/schema.prisma'),
      '\nmodel Widget {\n  id        String   @id\n  name      String   @unique\n  createdAt DateTime @default(now())\n}\n',
    );
    const result = dbMigration('Add widgets');
    expect(result.status, result.output).toBe(0);
    const added = folders().filter((name) => !before.includes(name));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^\d{14}_add_widgets$/);
    expect(added[0]! > before.at(-1)!).toBe(true);
    const sql = readFileSync(path.join(migrations(), added[0]!, 'migration.sql'), 'utf8');
    expect(sql).toContain('CREATE TABLE "Widget"');
    expect(sql).toContain('CREATE UNIQUE INDEX "Widget_name_key"');

    const database = await createTestDatabase(migrations());
    const prisma = createPrismaClient(database.url);
    // Raw SQL is not scoped to a PostgreSQL URL's ?schema=, so the table is named with it.
    const schemaName = database.url.startsWith('file:') ? null : new URL(database.url).searchParams.get('schema');
    const widget = Prisma.raw(schemaName ? `"${schemaName}"."Widget"` : '"Widget"');
    try {
      await prisma.$executeRaw`INSERT INTO ${widget} ("id", "name") VALUES (${'w1'}, ${'First widget'})`;
      const rows = await prisma.$queryRaw<{ name: string }[]>`SELECT "name" FROM ${widget} WHERE "id" = ${'w1'}`;
      expect(rows).toEqual([{ name: 'First widget' }]);
      await expect(prisma.$executeRaw`INSERT INTO ${widget} ("id", "name") VALUES (${'w2'}, ${'First widget'})`).rejects.toThrow();
    } finally {
      await prisma.$disconnect();
      await database.drop();
    }

    // Made once: the schema now matches the migrations again.
    expect(dbMigration('add_widgets_again').output).toContain('No changes');
    expect(folders()).toHaveLength(before.length + 1);
  }, 180_000);
});
