import { randomUUID } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { splitSchema } from '../src/db/postgres-url.js';

/**
 * The engine reads PostgreSQL's catalog, whose columns of the internal one-byte "char" type (OID 18:
 * pg_class.relkind, pg_constraint.contype, ...) Prisma's pg adapter cannot convert ("Column type
 * 'char' could not be deserialized"). They arrive as one-character strings already, so this client
 * labels them as text (OID 25) before the adapter looks; the values are unchanged. Seen with
 * @prisma/adapter-pg 7.10.0; remove this class once the adapter reads OID 18 itself (the
 * generator's own schema engine connection has the same workaround).
 */
class CatalogClient extends pg.Client {
  // node-postgres' query() has many overloads; this forwards every one unchanged.
  // biome-ignore lint/suspicious/noExplicitAny: one signature for all of query()'s overloads
  override query(...args: unknown[]): any {
    const relabel = <T>(result: T): T => {
      for (const one of (Array.isArray(result) ? result : [result]) as { fields?: { dataTypeID: number }[] }[]) {
        for (const field of one?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
      }
      return result;
    };
    const query = super.query as (...a: unknown[]) => unknown;
    const last = args.at(-1);
    if (typeof last === 'function') {
      return query.call(this, ...args.slice(0, -1), (error: Error | null, result: unknown) =>
        (last as (e: Error | null, r: unknown) => void)(error, error ? result : relabel(result)),
      );
    }
    const returned = query.apply(this, args);
    return returned instanceof Promise ? returned.then(relabel) : returned;
  }
}

/**
 * The schema engine's connection for db:migration: the server in DATABASE_URL, on which the engine
 * replays the committed migrations in a scratch database (Prisma's shadow database) made for the
 * purpose and dropped afterwards; so the user in DATABASE_URL needs the CREATEDB privilege, as for
 * `prisma migrate dev`. The scratch database is made and dropped here rather than by the adapter,
 * whose own version drops it while its pool still holds a connection to it, which PostgreSQL refuses.
 */
export function engineAdapter() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set. Copy .env.example to .env or export DATABASE_URL.');
  const server = splitSchema(url).connectionString;
  const poolFor = (database?: string) => {
    const target = new URL(server);
    if (database) target.pathname = `/${database}`;
    return new pg.Pool({ connectionString: target.toString(), Client: CatalogClient });
  };
  const main = poolFor();
  const adapter = new PrismaPg(main);
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    connect: () => adapter.connect(),
    async connectToShadowDb() {
      const name = `prisma_migrate_shadow_db_${randomUUID()}`;
      await main.query(`CREATE DATABASE "${name}"`);
      const pool = poolFor(name);
      const shadow = await new PrismaPg(pool).connect();
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await dispose();
        await pool.end();
        await main.query(`DROP DATABASE IF EXISTS "${name}"`);
      };
      return shadow;
    },
  };
  return { factory: bindMigrationAwareSqlAdapterFactory(factory), close: () => main.end() };
}
