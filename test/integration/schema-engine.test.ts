import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeSchema } from '../../src/core/compose-schema.js';
import type { LoadedModule } from '../../src/core/manifest.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';
import { buildRenderContext } from '../../src/core/render-context.js';
import {
  createTempPgSchema,
  diffSchemas,
  executeSql,
  findDrift,
  openSchemaEngine,
  parsePostgresUrl,
  TEST_POSTGRES_URL,
  type TempPgSchema,
} from '../helpers/schema-engine.js';

type Db = 'sqlite' | 'postgresql';

const registry = createRegistry(loadBuiltinModules());

function module(id: string): LoadedModule {
  const found = registry.modules.get(id);
  if (!found) throw new Error(`no module ${id}`);
  return found;
}

/** base first, then requirements before the modules that need them. */
function selection(ids: string[]): LoadedModule[] {
  const ordered: LoadedModule[] = [];
  const visit = (id: string) => {
    if (ordered.some((one) => one.manifest.id === id)) return;
    for (const required of module(id).manifest.requires) visit(required);
    ordered.push(module(id));
  };
  ['base', ...ids].forEach(visit);
  return ordered;
}

function schemaFor(db: Db, ids: string[]): string {
  const modules = selection(ids);
  return composeSchema(modules, buildRenderContext(modules, { projectName: 'engine-test', db, generatorVersion: '0.0.0' }));
}

/** SQL the engine itself writes for an empty database. */
async function fromEmpty(db: Db, url: string, schema: string): Promise<string> {
  const engine = await openSchemaEngine(db, url, schema);
  try {
    return await diffSchemas(engine, null, schema);
  } finally {
    await engine.close();
  }
}

async function pgQuery<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(TEST_POSTGRES_URL).connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

let sqliteDir: string;
beforeAll(() => {
  sqliteDir = mkdtempSync(path.join(tmpdir(), 'gatekit-engine-test-'));
});
afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});

let pgSchemas: TempPgSchema[] = [];
afterEach(async () => {
  await Promise.all(pgSchemas.map((schema) => schema.drop()));
  pgSchemas = [];
});

let sqliteCount = 0;
/** A fresh, empty database URL of the given kind. */
async function freshDatabase(db: Db): Promise<string> {
  if (db === 'sqlite') return `file:${path.join(sqliteDir, `db-${++sqliteCount}.sqlite`)}`;
  const schema = await createTempPgSchema();
  pgSchemas.push(schema);
  return schema.url;
}

describe('diffSchemas', () => {
  it('prints the migration from empty, and an empty migration between equal schemas', async () => {
    const url = await freshDatabase('sqlite');
    const schema = schemaFor('sqlite', ['jwt']);
    const engine = await openSchemaEngine('sqlite', url, schema);
    try {
      const sql = await diffSchemas(engine, null, schema);
      expect(sql).toContain('CREATE TABLE "User"');
      expect(sql).toContain('CREATE TABLE "PasswordCredential"');
      expect(await diffSchemas(engine, schema, schema)).toBe('-- This is an empty migration.\n');
      const increment = await diffSchemas(engine, schemaFor('sqlite', []), schema);
      expect(increment).toContain('CREATE TABLE "PasswordCredential"');
      expect(increment).not.toContain('CREATE TABLE "User"');
    } finally {
      await engine.close();
    }
  });

  it('rejects an invalid schema with Prisma\'s validation message', async () => {
    const url = await freshDatabase('sqlite');
    const schema = schemaFor('sqlite', []);
    const engine = await openSchemaEngine('sqlite', url, schema);
    try {
      await expect(diffSchemas(engine, null, `${schema}\nmodel Broken {\n  id Strin @id\n}\n`)).rejects.toThrow(
        /Type "Strin" is neither a built-in type/,
      );
    } finally {
      await engine.close();
    }
  });

  it('has no MySQL connector in the WebAssembly engine', async () => {
    await expect(openSchemaEngine('mysql', 'mysql://root@127.0.0.1:3306/test', 'datasource db {\n  provider = "mysql"\n}\n')).rejects.toThrow(
      /no MySQL connector/,
    );
  });
});

describe.each<Db>(['sqlite', 'postgresql'])('findDrift on %s', (db) => {
  const schema = schemaFor(db, ['jwt']);

  it('reports no drift for a database built from the engine\'s own diff', async () => {
    const url = await freshDatabase(db);
    await executeSql({ db, url, sql: await fromEmpty(db, url, schema) });
    expect(await findDrift({ db, url, schema })).toBe('');
  });

  it('reports a missing index', async () => {
    const url = await freshDatabase(db);
    await executeSql({ db, url, sql: await fromEmpty(db, url, schema) });
    await executeSql({ db, url, sql: 'DROP INDEX "Session_expiresAt_idx";' });
    const drift = await findDrift({ db, url, schema });
    expect(drift).toContain('CREATE INDEX "Session_expiresAt_idx" ON "Session"("expiresAt");');
    expect(drift).not.toContain('CREATE TABLE');
  });

  it('reports a missing table and an unexpected one', async () => {
    const url = await freshDatabase(db);
    await executeSql({ db, url, sql: await fromEmpty(db, url, schemaFor(db, [])) });
    await executeSql({ db, url, sql: 'CREATE TABLE "Stray" ("id" INTEGER NOT NULL PRIMARY KEY);' });
    const drift = await findDrift({ db, url, schema });
    expect(drift).toContain('CREATE TABLE "PasswordCredential"');
    expect(drift).toMatch(/DROP TABLE "Stray"/);
  });

  it('reports everything for an empty database', async () => {
    const url = await freshDatabase(db);
    const drift = await findDrift({ db, url, schema });
    expect(drift).toContain('CREATE TABLE "User"');
    expect(drift).toContain('CREATE TABLE "PasswordCredential"');
  });
});

describe('findDrift on postgresql details', () => {
  const schema = schemaFor('postgresql', ['jwt']);

  it('works inside the ?schema= of the URL and sees column and foreign key changes', async () => {
    const url = await freshDatabase('postgresql');
    const name = parsePostgresUrl(url).schema;
    await executeSql({ db: 'postgresql', url, sql: await fromEmpty('postgresql', url, schema) });
    const tables = await pgQuery<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [name],
    );
    expect(tables.map((row) => row.table_name)).toEqual(['OneTimeToken', 'PasswordCredential', 'RefreshToken', 'Session', 'SigningKey', 'User']);

    await executeSql({
      db: 'postgresql',
      url,
      sql: `
        ALTER TABLE "User" ALTER COLUMN "name" SET NOT NULL;
        ALTER TABLE "User" ALTER COLUMN "emailVerified" DROP DEFAULT;
        ALTER TABLE "Session" DROP CONSTRAINT "Session_userId_fkey";
        ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
      `,
    });
    const drift = await findDrift({ db: 'postgresql', url, schema });
    expect(drift).toMatch(/ALTER COLUMN "name" DROP NOT NULL/);
    expect(drift).toMatch(/ALTER COLUMN "emailVerified" SET DEFAULT false/);
    expect(drift).toMatch(/ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY \("userId"\) REFERENCES "User"\("id"\) ON DELETE CASCADE/);
  });
});

describe.each<Db>(['sqlite', 'postgresql'])('committed module migrations on %s', (db) => {
  const withSchema = [...registry.modules.values()].filter((one) => one.manifest.schema).map((one) => one.manifest.id);

  it.each(withSchema)('%s: the migrations of the selection build exactly the composed schema', async (id) => {
    const modules = selection([id]);
    const url = await freshDatabase(db);
    for (const one of modules.filter((candidate) => candidate.manifest.schema)) {
      const file = path.join(one.dir, one.manifest.migrations ?? 'migrations', `${db}.sql`);
      await executeSql({ db, url, sql: readFileSync(file, 'utf8') });
    }
    const drift = await findDrift({ db, url, schema: schemaFor(db, [id]) });
    expect(drift, 'migrations are stale: run npm run migrations:build').toBe('');
  });
});
