// The databases of one bench/cases/http.mjs run, created by the run and removed after it (also when
// it fails): one for the generated app (which the bare Prisma route reads too) and one for the
// Better Auth peer. Another case names its own (bench/cases/audit.mjs: one per app it compares).
//   sqlite      one file per name in the run's temporary folder.
//   postgresql  one database per name, gatekit_bench_<pid>, peer_bench_<pid>…, on the local server
//               (BENCH_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/postgres), dropped
//               at the end.
// rows(which) opens one of them for seeding with the generator's own dev dependencies
// (better-sqlite3, pg), never the apps' drivers: the files and tables are the same.
import { createRequire } from 'node:module';
import path from 'node:path';

export const DATABASES = ['sqlite', 'postgresql'];

/** Inserts at most this many rows per statement on PostgreSQL (its limit is 65,535 parameters). */
const PG_ROWS_PER_INSERT = 500;

const quote = (name) => `"${name.replace(/"/g, '""')}"`;

export async function createDatabases(root, db, work, names = ['gatekit', 'peer']) {
  const require = createRequire(path.join(root, 'package.json'));
  if (db === 'sqlite') return sqliteDatabases(require('better-sqlite3'), work, names);
  if (db === 'postgresql') return postgresDatabases(require('pg'), names);
  throw new Error(`BENCH_DB: unknown database ${JSON.stringify(db)} (sqlite or postgresql)`);
}

function sqliteDatabases(Database, work, names) {
  const files = Object.fromEntries(names.map((name) => [name, path.join(work, `${name}.db`)]));
  return {
    // The app's file is in WAL mode, as its db:migrate leaves it (the peer's keeps SQLite's default
    // rollback journal); BENCH_SQLITE_JOURNAL=delete puts the app's back, to measure what WAL changes.
    description: `sqlite, one file per server; the app's journal mode ${process.env.BENCH_SQLITE_JOURNAL ?? 'wal'}, the peer's delete`,
    urls: Object.fromEntries(names.map((name) => [name, `file:${files[name]}`])),
    gatekitUrl: `file:${files.gatekit}`,
    peerEnv: { PEER_DB: files.peer },
    rows: async (which) => sqliteRows(new Database(files[which])),
    /** Sets a file's journal mode (`PRAGMA journal_mode`), which the file keeps. */
    journalMode: async (which, mode) => {
      const db = new Database(files[which]);
      try {
        db.pragma(`journal_mode = ${mode}`);
      } finally {
        db.close();
      }
    },
    drop: async () => {}, // the run's folder goes, with the files
  };
}

function sqliteRows(db) {
  return {
    one: async (table, where) => {
      const columns = Object.keys(where);
      return db.prepare(`SELECT * FROM ${quote(table)} WHERE ${columns.map((c) => `${quote(c)} = ?`).join(' AND ')}`).get(...Object.values(where));
    },
    /** Inserts copies of `row`, one per entry of `changes` (the columns that differ), in one transaction. */
    copies: async (table, row, changes) => {
      const columns = Object.keys(row);
      const insert = db.prepare(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const change of changes) insert.run(...columns.map((column) => (column in change ? change[column] : row[column])));
      })();
    },
    analyze: async () => {}, // as SQLite apps run: no statistics unless someone runs ANALYZE
    close: async () => db.close(),
  };
}

function postgresDatabases(pg, which) {
  const server = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  const names = Object.fromEntries(which.map((name) => [name, `${name.toLowerCase()}_bench_${process.pid}`]));
  const urlOf = (name) => {
    const url = new URL(server);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const admin = async (statements) => {
    const client = new pg.Client({ connectionString: server.toString() });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  // WITH (FORCE): a server still connected (one that failed to stop) does not keep a database alive.
  const dropStatement = (name) => `DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`;
  const drop = () => admin(Object.values(names).map(dropStatement));
  return (async () => {
    await dropLeftovers(pg, server, dropStatement);
    await drop();
    await admin(Object.values(names).map((name) => `CREATE DATABASE ${quote(name)}`));
    return {
      description: `postgresql ${server.host}, one database per server (${Object.values(names).join(', ')}), dropped after the run`,
      urls: Object.fromEntries(which.map((name) => [name, urlOf(names[name])])),
      gatekitUrl: urlOf(names.gatekit),
      peerEnv: { PEER_DATABASE_URL: urlOf(names.peer) },
      rows: async (which) => {
        const client = new pg.Client({ connectionString: urlOf(names[which]) });
        await client.connect();
        return postgresRows(client);
      },
      drop,
    };
  })();
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** The databases of an earlier run that was killed before it could drop them (their process is gone). */
async function dropLeftovers(pg, server, dropStatement) {
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const { rows } = await client.query(String.raw`SELECT datname FROM pg_database WHERE datname ~ '^[a-z]+_bench_\d+$'`);
    for (const { datname } of rows) if (!alive(Number(datname.split('_').at(-1)))) await client.query(dropStatement(datname));
  } finally {
    await client.end();
  }
}

function postgresRows(client) {
  return {
    one: async (table, where) => {
      const columns = Object.keys(where);
      const { rows } = await client.query(`SELECT * FROM ${quote(table)} WHERE ${columns.map((c, i) => `${quote(c)} = $${i + 1}`).join(' AND ')}`, Object.values(where));
      return rows[0];
    },
    copies: async (table, row, changes) => {
      const columns = Object.keys(row);
      await client.query('BEGIN');
      try {
        for (let start = 0; start < changes.length; start += PG_ROWS_PER_INSERT) {
          const batch = changes.slice(start, start + PG_ROWS_PER_INSERT);
          const values = [];
          const tuples = batch.map((change) => {
            const placeholders = columns.map((column) => {
              values.push(column in change ? change[column] : row[column]);
              return `$${values.length}`;
            });
            return `(${placeholders.join(', ')})`;
          });
          await client.query(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${tuples.join(', ')}`, values);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    // Statistics for the planner, as autovacuum would gather them on a server that had time to.
    analyze: () => client.query('ANALYZE'),
    close: () => client.end(),
  };
}
