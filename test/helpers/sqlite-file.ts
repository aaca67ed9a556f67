import Database from 'better-sqlite3';

/** Opens the SQLite file of a `file:` DATABASE_URL (for the few tests that must set up rows directly). */
export function openSqlite(url: string, options: Database.Options = {}): Database.Database {
  return new Database(url.slice('file:'.length), options);
}

/** A date as Prisma's SQLite adapter stores it: ISO 8601 with "+00:00". */
export const sqliteDate = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** The `n` that a `SELECT count(*) AS n …` query answers, read from the app's SQLite file. */
export function countRows(url: string, sql: string, ...params: unknown[]): number {
  const db = openSqlite(url, { readonly: true });
  try {
    return (db.prepare(sql).get(...params) as { n: number }).n;
  } finally {
    db.close();
  }
}
