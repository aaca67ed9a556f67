import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeChoices } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { planUpgrade } from '../../src/core/plan-upgrade.js';
import { createRegistry, loadBuiltinModules, loadReleaseModules } from '../../src/core/registry.js';
import { releaseProfile } from '../../src/core/release-profile.js';
import { writeTree } from '../../src/core/write-tree.js';
import { createTempPgSchema, findDrift, parsePostgresUrl, type TempPgSchema } from '../helpers/schema-engine.js';

/**
 * The upgrade's migration against real databases, without installing an app: a 4.0 app's own
 * migrations, rows in them, then the upgrade's migration. (The runtime tests do the same through
 * the app's own db:migrate.)
 */
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-upgrade-migration-'));
const pgSchemas: TempPgSchema[] = [];
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  for (const schema of pgSchemas) await schema.drop();
});

const release40 = releaseProfile('4.0');
const registry40 = createRegistry(loadReleaseModules(release40), [], release40);
const registry = createRegistry(loadBuiltinModules());

/** A 4.0 app (jwt, passkey, orgs) on disk, and its migrations' SQL in order. */
function app40(name: string, db: 'sqlite' | 'postgresql', env: Record<string, string> = {}) {
  const dir = path.join(work, name);
  const choices = mergeChoices({ templateVersion: '4.0', auth: ['jwt', 'passkey'], db }, { pm: 'npm', install: false, git: false });
  writeTree(dir, generateProject({ projectName: name, choices, registry: registry40, envOverrides: env, now: new Date('2026-01-01T00:00:00Z') }).tree);
  const migrations = readdirSync(path.join(dir, 'prisma/migrations'))
    .filter((folder) => /^\d{14}_/.test(folder))
    .sort()
    .map((folder) => readFileSync(path.join(dir, 'prisma/migrations', folder, 'migration.sql'), 'utf8'));
  return { dir, migrations };
}

async function upgradeSql(dir: string, env: NodeJS.ProcessEnv = {}) {
  const plan = await planUpgrade({ appDir: dir, registry, env });
  const migration = plan.changes.find((change) => change.file === plan.migration?.file)!;
  const schema = plan.changes.find((change) => change.file === 'prisma/schema.prisma')!.content;
  return { sql: migration.content, schema };
}

const ROWS = [
  `INSERT INTO "User" ("id", "email", "updatedAt") VALUES ('u1', 'ada@example.com', CURRENT_TIMESTAMP)`,
  `INSERT INTO "Session" ("id", "userId", "method", "createdAt", "expiresAt", "maxExpiresAt") VALUES ('s1', 'u1', 'password', '2026-03-04T05:06:07.000Z', '2099-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z')`,
  `INSERT INTO "RefreshToken" ("id", "sessionId", "tokenHash", "expiresAt") VALUES ('r1', 's1', 'hash', '2099-01-01T00:00:00.000Z')`,
];

describe("the upgrade's migration from 4.0", () => {
  it('SQLite: refuses to run with foreign keys on (the drop of User would take every session along), and keeps every row with them off', async () => {
    const { dir, migrations } = app40('sqlite', 'sqlite');
    const file = path.join(dir, 'dev.db');
    const db = new Database(file);
    try {
      for (const sql of migrations) db.exec(sql);
      for (const sql of ROWS) db.exec(sql);
      const { sql, schema } = await upgradeSql(dir);

      // An older runner: the migration inside a transaction, foreign keys on.
      db.pragma('foreign_keys = ON');
      expect(() => db.exec(`BEGIN;\n${sql}\nCOMMIT;`)).toThrow(/CHECK constraint failed: run this migration with foreign keys off/);
      if (db.inTransaction) db.exec('ROLLBACK');
      expect(db.prepare('SELECT count(*) AS n FROM "Session"').get()).toEqual({ n: 1 });

      // 4.1's db:migrate: foreign keys off before the transaction.
      db.pragma('foreign_keys = OFF');
      db.exec(`BEGIN;\n${sql}\nCOMMIT;`);
      db.pragma('foreign_keys = ON');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.prepare('SELECT count(*) AS n FROM "Session"').get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT count(*) AS n FROM "RefreshToken"').get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT "securityVersion", "lastSignInAt" FROM "User"').get()).toEqual({ securityVersion: 0, lastSignInAt: '2026-03-04T05:06:07.000Z' });
      db.close();
      expect(await findDrift({ db: 'sqlite', url: `file:${file}`, schema })).toBe('');
    } finally {
      if (db.open) db.close();
    }
  });

  it('PostgreSQL: adds the columns with their defaults and the data step, keeps every row, and leaves no drift', async () => {
    const target = await createTempPgSchema();
    pgSchemas.push(target);
    const { dir, migrations } = app40('postgresql', 'postgresql', { DATABASE_URL: target.url });
    const { connectionString, schema: searchPath } = parsePostgresUrl(target.url);
    const client = new pg.Client({ connectionString, options: `-c search_path="${searchPath}"` });
    await client.connect();
    try {
      for (const sql of migrations) await client.query(sql.replace('CREATE SCHEMA IF NOT EXISTS "public";', ''));
      for (const sql of ROWS) await client.query(sql);
      const { sql, schema } = await upgradeSql(dir, { DATABASE_URL: target.url });
      await client.query(`BEGIN;\n${sql}\nCOMMIT;`);
      expect((await client.query('SELECT count(*)::int AS n FROM "RefreshToken"')).rows).toEqual([{ n: 1 }]);
      const user = (await client.query('SELECT "securityVersion", "lastSignInAt" FROM "User"')).rows[0];
      expect(user.securityVersion).toBe(0);
      expect(new Date(user.lastSignInAt).toISOString()).toBe('2026-03-04T05:06:07.000Z');
      expect(await findDrift({ db: 'postgresql', url: target.url, schema })).toBe('');
    } finally {
      await client.end();
    }
  });
});
