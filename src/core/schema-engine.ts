/**
 * Prisma's schema engine, offline: the WebAssembly build (`@prisma/schema-engine-wasm`) driven
 * through Prisma's own driver adapters. No native engine, no network.
 *
 * - `diffSchemas` is `prisma migrate diff --from-schema A --to-schema B --script` (or
 *   `--from-empty`).
 * - `findDrift` introspects a live database (`prisma db pull`) and diffs that datamodel against the
 *   wanted schema: the SQL it returns is what the database lacks. Empty string: no drift.
 *
 * PostgreSQL drift is checked the same way as SQLite: real engine introspection of the live schema.
 * Introspection through `@prisma/adapter-pg` 7.10 fails out of the box with "Column type 'char'
 * could not be deserialized": the engine's catalog queries return columns of PostgreSQL's internal
 * one-byte `"char"` type (OID 18: pg_class.relkind, pg_constraint.contype, ...) and the adapter's
 * type table has no entry for it. `PgCharAsTextClient` below labels those columns as `text` (OID 25)
 * before the adapter looks at them; the values are untouched (node-postgres already returns them as
 * one-character strings). With that, introspection and `schemaPush` work on PostgreSQL too.
 *
 * MySQL is not possible: the WebAssembly engine only contains the SQLite and PostgreSQL connectors
 * (`mysql` is not a supported connector), so `openSchemaEngine('mysql', ...)` throws.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type EngineModule, loadEngineModule } from './engine-module.js';
import { parsePostgresUrl } from './postgres-url.js';

export type EngineDatabase = 'sqlite' | 'postgresql' | 'mysql';

export interface OpenSchemaEngine {
  db: EngineDatabase;
  url: string;
  /** The raw WebAssembly engine, for commands this module does not wrap. */
  engine: SchemaEngine;
  /** Frees the engine and closes its database connections. */
  close(): Promise<void>;
}

const SCHEMA_FILE = 'schema.prisma';
const EMPTY_MIGRATION = '-- This is an empty migration.';
const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

/** The engine from create-gatekit's own (or a pack's) devDependencies. */
function loadOwnEngineModule(): Promise<EngineModule> {
  return loadEngineModule(createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
}

/** Relabels columns of PostgreSQL's internal `"char"` type (OID 18) as text; see the file comment. */
function relabelCharColumns<T>(result: T): T {
  const results = Array.isArray(result) ? result : [result];
  for (const one of results as { fields?: { dataTypeID: number }[] }[]) {
    for (const field of one?.fields ?? []) {
      if (field.dataTypeID === 18) field.dataTypeID = 25;
    }
  }
  return result;
}

class PgCharAsTextClient extends pg.Client {
  // node-postgres' query() has many overloads; this forwards all of them unchanged.
  // biome-ignore lint/suspicious/noExplicitAny: each overload returns its own type
  override query(...args: unknown[]): any {
    const last = args[args.length - 1];
    const query = super.query as (...a: unknown[]) => unknown;
    if (typeof last === 'function') {
      const callback = last as (error: Error | null, result: unknown) => void;
      return query.call(this, ...args.slice(0, -1), (error: Error | null, result: unknown) =>
        callback(error, error ? result : relabelCharColumns(result)),
      );
    }
    const returned = query.apply(this, args);
    return returned instanceof Promise ? returned.then(relabelCharColumns) : returned;
  }
}

export { parsePostgresUrl, type PostgresTarget } from './postgres-url.js';

/** A node-postgres pool whose sessions use the URL's schema (search_path), as Prisma's own engine does. */
export function createPgPool(url: string): pg.Pool {
  const { connectionString, schema } = parsePostgresUrl(url);
  return new pg.Pool({
    connectionString,
    options: `-c search_path="${schema.replace(/"/g, '""')}"`,
    Client: PgCharAsTextClient,
  });
}

function sqliteFile(url: string): string {
  return url.replace(/^file:/, '');
}

/**
 * Starts a schema engine connected to `url`. `schemaText` is the engine's initial datamodel (its
 * provider must match `db`).
 */
export async function openSchemaEngine(db: EngineDatabase, url: string, schemaText: string): Promise<OpenSchemaEngine> {
  const bg = await loadOwnEngineModule();
  let factory: PrismaBetterSqlite3 | PrismaPg;
  let release: () => Promise<void> = async () => {};
  if (db === 'sqlite') {
    factory = new PrismaBetterSqlite3({ url });
  } else if (db === 'postgresql') {
    const pool = createPgPool(url);
    factory = new PrismaPg(pool, { schema: parsePostgresUrl(url).schema });
    release = () => pool.end();
  } else {
    throw new Error(
      "The WebAssembly schema engine (@prisma/schema-engine-wasm) has no MySQL connector; it only supports 'sqlite' and 'postgresql'.",
    );
  }
  const engine = await bg.SchemaEngine.new(
    { datamodels: [[SCHEMA_FILE, schemaText]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  let closed = false;
  return {
    db,
    url,
    engine,
    async close() {
      if (closed) return;
      closed = true;
      engine.free();
      await release();
    },
  };
}

function stripEmptyMigration(sql: string | null): string {
  const text = (sql ?? '').replace(EMPTY_MIGRATION, '').trim();
  return text ? `${text}\n` : '';
}

function datamodel(content: string) {
  return { tag: 'schemaDatamodel' as const, files: [{ path: SCHEMA_FILE, content }] };
}

/**
 * SQL that turns a database built from `fromSchemaText` (null: an empty database) into one for
 * `toSchemaText`, exactly as `prisma migrate diff --script` prints it, including the
 * "-- This is an empty migration." line when nothing changes.
 */
export async function diffSchemas(
  handle: OpenSchemaEngine,
  fromSchemaText: string | null,
  toSchemaText: string,
): Promise<string> {
  const result = await handle.engine.diff({
    from: fromSchemaText === null ? { tag: 'empty' } : datamodel(fromSchemaText),
    to: datamodel(toSchemaText),
    script: true,
    exitCode: null,
    filters: NO_FILTERS,
  });
  return result.stdout ?? '';
}

/** The datamodel `prisma db pull` would write for the live database; null when it has no tables. */
export async function introspectDatamodel(handle: OpenSchemaEngine, schemaText: string): Promise<string | null> {
  try {
    const result = await handle.engine.introspect({
      schema: { files: [{ path: SCHEMA_FILE, content: schemaText }] },
      baseDirectoryPath: tmpdir(),
      force: true,
      compositeTypeDepth: 0,
      namespaces: null,
    });
    return result.schema.files.map((file) => file.content).join('\n');
  } catch (error) {
    // P4001: "The introspected database was empty".
    if ((error as { code?: string }).code === 'P4001') return null;
    throw error;
  }
}

/**
 * Introspects the (already migrated) database at `url` and returns the SQL that would bring it to
 * `schema`; '' when the database matches. `prisma migrate diff --from-url <url> --to-schema`.
 */
export async function findDrift(options: { db: EngineDatabase; url: string; schema: string }): Promise<string> {
  const handle = await openSchemaEngine(options.db, options.url, options.schema);
  try {
    const live = await introspectDatamodel(handle, options.schema);
    return stripEmptyMigration(await diffSchemas(handle, live, options.schema));
  } finally {
    await handle.close();
  }
}

/**
 * Runs a SQL script (a migration) against the database at `url`. PostgreSQL scripts run in the
 * URL's `?schema=` through search_path, the way the engine renders them (unqualified names).
 */
export async function executeSql(options: { db: EngineDatabase; url: string; sql: string }): Promise<void> {
  if (options.db === 'sqlite') {
    const database = new Database(sqliteFile(options.url));
    try {
      database.exec(options.sql);
    } finally {
      database.close();
    }
  } else if (options.db === 'postgresql') {
    const pool = createPgPool(options.url);
    try {
      await pool.query(options.sql);
    } finally {
      await pool.end();
    }
  } else {
    throw new Error('executeSql supports sqlite and postgresql only.');
  }
}

/** PostgreSQL server for tests and scripts: GATEKIT_TEST_POSTGRES_URL, default the local trust-auth server. */
export const TEST_POSTGRES_URL = process.env.GATEKIT_TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export interface TempPgSchema {
  /** `serverUrl` with `?schema=<name>`. */
  url: string;
  schema: string;
  /** DROP SCHEMA ... CASCADE. */
  drop(): Promise<void>;
}

/** Creates a uniquely named, empty PostgreSQL schema on the server at `serverUrl`. */
export async function createTempPgSchema(serverUrl: string = TEST_POSTGRES_URL, prefix = 'gatekit_tmp'): Promise<TempPgSchema> {
  const schema = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const { connectionString } = parsePostgresUrl(serverUrl);
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA "${schema}"`);
  const url = new URL(connectionString);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), schema, drop: () => run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`) };
}
