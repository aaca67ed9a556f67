import Database from 'libsql';

type Connection = Database.Database;
type Statement = Database.Statement;

interface Prepared {
  statement: Statement;
  /** Null for a statement that returns no rows (INSERT, UPDATE, DELETE, BEGIN...). */
  columns: string[] | null;
  declaredTypes: string[];
}

/** What one statement answered. Integers come as bigints: the caller decides what fits a number. */
export interface SqliteResult {
  columns: string[];
  /** Each column's declared type (`TEXT`, `DATETIME`...), or '' for an expression. */
  declaredTypes: string[];
  rows: unknown[][];
  changes: number;
  lastInsertRowid?: bigint;
}

const SQLITE_BUSY = 5;
/** Statements kept prepared. The app runs a few hundred distinct statements at most. */
const STATEMENT_CACHE_SIZE = 500;
const NO_ROWS: unknown[][] = [];

/** The error code (SQLITE_BUSY is 5) of an error from the driver, without its extended part. */
export const primaryCode = (error: unknown): number | undefined => {
  const rawCode = (error as { rawCode?: unknown } | null)?.rawCode;
  return typeof rawCode === 'number' ? rawCode & 0xff : undefined;
};

/**
 * One SQLite connection on the `libsql` driver: synchronous, statements prepared once.
 *
 * Why not @libsql/client, which Prisma's libSQL adapter is built on (docs/performance.md):
 * - it prepares every statement anew and builds each row as an object with both numbered and
 *   named columns: about 115 µs per call, against 20 µs for a statement prepared once;
 * - its transaction() left the connection it ran on open after every transaction: one open file
 *   and its memory per sign-up, until SQLITE_CANTOPEN;
 * - importing it loads its remote-protocol client too: about 100 ms of every cold start.
 * After SQLITE_BUSY (another process held the database), libSQL 0.5 leaves a read open on the
 * connection, and every later write would fail: this connection reopens instead.
 */
export class SqliteConnection {
  #db: Connection;
  #opened = 1;
  #closed = false;
  readonly #statements = new Map<string, Prepared>();

  constructor(readonly path: string) {
    this.#db = SqliteConnection.#open(path);
  }

  static #open(path: string): Connection {
    const db = new Database(path);
    db.prepare('SELECT 1').get();
    return db;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** True between BEGIN and COMMIT or ROLLBACK on the connection as it is now. */
  get inTransaction(): boolean {
    return !this.#closed && this.#db.inTransaction;
  }

  /** How many times the connection was opened: a transaction does not survive a reopening. */
  get openings(): number {
    return this.#opened;
  }

  #prepare(sql: string): Prepared {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const statement = this.#db.prepare(sql);
    statement.safeIntegers(true);
    let prepared: Prepared;
    try {
      statement.raw(true);
      const columns = statement.columns() as { name: string; type: string | null }[];
      prepared = { statement, columns: columns.map((column) => column.name), declaredTypes: columns.map((column) => column.type ?? '') };
    } catch {
      // raw() refuses a statement that returns no rows.
      prepared = { statement, columns: null, declaredTypes: [] };
    }
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value!);
    this.#statements.set(sql, prepared);
    return prepared;
  }

  /** Runs one statement now: nothing else can use the connection meanwhile. Throws the driver's SqliteError. */
  query(sql: string, args: readonly unknown[]): SqliteResult {
    return this.#withStatement(sql, ({ statement, columns, declaredTypes }) => {
      if (columns) return { columns, declaredTypes, rows: statement.all(args) as unknown[][], changes: 0 };
      const info = statement.run(args) as { changes: number; lastInsertRowid: number | bigint };
      return { columns: [], declaredTypes, rows: NO_ROWS, changes: info.changes, lastInsertRowid: BigInt(info.lastInsertRowid) };
    });
  }

  /**
   * Runs one SELECT now and keeps its first row only: the driver steps once and hands that row over
   * in one call, without the row iterator `query` builds (docs/performance.md).
   */
  queryFirst(sql: string, args: readonly unknown[]): SqliteResult {
    return this.#withStatement(sql, ({ statement, columns, declaredTypes }) => {
      if (!columns) throw new Error('queryFirst needs a statement that returns rows');
      const row = statement.get(args) as unknown[] | undefined;
      return { columns, declaredTypes, rows: row ? [row] : [], changes: 0 };
    });
  }

  /** Runs work on the statement prepared for sql; a statement that failed is prepared anew next time. */
  #withStatement(sql: string, work: (prepared: Prepared) => SqliteResult): SqliteResult {
    if (this.#closed) throw new Error('The SQLite connection is closed');
    try {
      return work(this.#prepare(sql));
    } catch (error) {
      this.#statements.delete(sql);
      if (primaryCode(error) === SQLITE_BUSY) this.reconnect();
      throw error;
    }
  }

  /** Runs a script of statements separated by semicolons. */
  exec(script: string): void {
    if (this.#closed) throw new Error('The SQLite connection is closed');
    try {
      this.#db.exec(script);
    } catch (error) {
      if (primaryCode(error) === SQLITE_BUSY) this.reconnect();
      throw error;
    }
  }

  /** Closes the connection and opens a new one: what is left of a failed statement goes with it. */
  reconnect(): void {
    this.#statements.clear();
    try {
      this.#db.close();
    } finally {
      this.#db = SqliteConnection.#open(this.path);
      this.#opened++;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }
}

/** The file a `file:` URL names: file:./dev.db, file:/abs/app.db, file:///abs/app.db. */
export function sqlitePath(url: string): string {
  if (url === ':memory:') return url;
  if (!url.startsWith('file:')) throw new Error(`SQLite needs a file: URL, got ${JSON.stringify(url.split(':')[0] + ':')}`);
  let path = url.slice('file:'.length).split('?')[0]!;
  if (path.startsWith('//')) {
    const slash = path.indexOf('/', 2);
    const host = path.slice(2, slash === -1 ? undefined : slash);
    if (host !== '' && host !== 'localhost') throw new Error(`Invalid host in file URL: ${JSON.stringify(host)}`);
    path = slash === -1 ? '' : path.slice(slash);
  }
  return decodeURIComponent(path);
}
