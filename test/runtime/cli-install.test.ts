import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { createTempPgSchema, parsePostgresUrl, type TempPgSchema } from '../helpers/schema-engine.js';

let database: TempPgSchema;
let result: CliResult;
// Outside this repository: the CLI rightly skips `git init` inside another git work tree.
const dir = path.join(tmpdir(), 'gatekit-cli-install', 'cli-install-postgresql');

beforeAll(async () => {
  database = await createTempPgSchema();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  result = runCli([dir, '--yes', '--auth', 'jwt', '--no-orgs', '--db', 'postgresql'], { env: { DATABASE_URL: database.url, NO_COLOR: '1' } });
});
afterAll(async () => {
  await database?.drop();
});

describe('create-gatekit with install, migrate and git (the default path), on PostgreSQL', () => {
  it('succeeds and prints progress and next steps', () => {
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('Installing dependencies (npm install)');
    expect(result.stdout).toContain('Applying database migrations (db:migrate)');
    expect(result.stdout).toContain(`Next steps:\n  cd ${dir}\n  npm run dev`);
  });

  it('applied the migrations to the DATABASE_URL it was given, recorded as Prisma records them', async () => {
    const { connectionString, schema } = parsePostgresUrl(database.url);
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT migration_name, finished_at FROM "${schema}"._prisma_migrations ORDER BY migration_name`);
      expect(rows.map((row) => row.migration_name.replace(/^\d+_/, ''))).toEqual(['base', 'jwt']);
      expect(rows.every((row) => row.finished_at !== null)).toBe(true);
      const tables = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema]);
      expect(tables.rows.map((row) => row.table_name)).toEqual(['OneTimeToken', 'PasswordCredential', 'RefreshToken', 'Session', 'SigningKey', 'User', '_prisma_migrations']);
    } finally {
      await client.end();
    }
  });

  it('made a git repository with one commit that excludes .env and node_modules', () => {
    const log = spawnSync('git', ['log', '--oneline'], { cwd: dir, encoding: 'utf8' });
    expect(log.stdout.trim().split('\n')).toHaveLength(1);
    const files = spawnSync('git', ['ls-files'], { cwd: dir, encoding: 'utf8' }).stdout.split('\n');
    expect(files).toContain('package.json');
    expect(files).not.toContain('.env');
    expect(files.some((file) => file.startsWith('node_modules/') || file.startsWith('src/generated/'))).toBe(false);
    expect(existsSync(path.join(dir, 'src/generated/prisma/client.ts'))).toBe(true);
  });
});
