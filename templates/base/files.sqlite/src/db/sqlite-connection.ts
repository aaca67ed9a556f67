import { Buffer } from 'node:buffer';
import { LibsqlError, type Client, type InArgs, type InStatement, type InValue, type ResultSet, type Transaction, type TransactionMode } from '@libsql/client';
import Database from 'libsql';

type Connection = Database.Database;
type Statement = Database.Statement;

interface Prepared {
  statement: Statement;
  /** Null for a statement that returns no rows (INSERT, UPDATE, DELETE, BEGIN...). */
  columns: string[] | null;
  columnTypes: string[];
}

const SQLITE_BUSY = 5;
/** Statements kept prepared. The app runs a few hundred distinct statements at most. */
const STATEMENT_CACHE_SIZE = 500;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const BEGIN: Record<TransactionMode, string> = { write: 'BEGIN IMMEDIATE', read: 'BEGIN TRANSACTION READONLY', deferred: 'BEGIN DEFERRED' };

const ERROR_NAMES: Record<number, string> = { 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 8: 'SQLITE_READONLY', 13: 'SQLITE_FULL', 14: 'SQLITE_CANTOPEN', 19: 'SQLITE_CONSTRAINT', 26: 'SQLITE_NOTADB' };

/** The driver's error as @libsql/client reports it, which is what Prisma's adapter reads. */
function toLibsqlError(error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  const rawCode = (error as { rawCode?: number }).rawCode;
  const base = rawCode === undefined ? undefined : rawCode & 0xff;
  const code = base === undefined ? 'SQLITE_UNKNOWN' : (ERROR_NAMES[base] ?? `SQLITE_ERROR_${base}`);
  return new LibsqlError(error.message, code, (error as { code?: string }).code, rawCode, error);
}

function toSqlValue(value: InValue): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.valueOf();
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError('Only finite numbers can be passed to the database');
  return value;
}

function toSqlArgs(args: InArgs | undefined): unknown {
  if (!args) return [];
  if (Array.isArray(args)) return args.map(toSqlValue);
  return Object.fromEntries(Object.entries(args).map(([name, value]) => [name.replace(/^[@$:]/, ''), toSqlValue(value)]));
}

/** Integers come back as numbers (an error if one does not fit), blobs as ArrayBuffers: what @libsql/client returns. */
function fromSqlRow(row: unknown[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    if (typeof value === 'bigint') {
      if (value < MIN_SAFE || value > MAX_SAFE) throw new RangeError('Received an integer that cannot be represented as a JavaScript number');
      row[i] = Number(value);
    } else if (value instanceof Uint8Array) {
      row[i] = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
    }
  }
  return row;
}

function resultSet(columns: string[], columnTypes: string[], rows: unknown[][], rowsAffected: number, lastInsertRowid?: bigint): ResultSet {
  return { columns, columnTypes, rows, rowsAffected, lastInsertRowid } as unknown as ResultSet;
}

/**
 * One SQLite connection for Prisma's libSQL adapter, on the `libsql` driver itself.
 *
 * It stands in for @libsql/client's local client (0.17), for three reasons measured on this app
 * (docs/performance.md):
 * - that client prepares every statement anew and builds each row as an object with both numbered
 *   and named columns: about 115 µs per call, against 20 µs for a statement prepared once;
 * - its transaction() left the connection it ran on open and unreachable after every transaction:
 *   one open file and its memory per sign-up, until SQLITE_CANTOPEN;
 * - after SQLITE_BUSY (another process held the database), libSQL 0.5 leaves a read open on the
 *   connection, and every later write of the app would fail: this connection reopens instead.
 * Prisma's adapter lets one query or one transaction use the connection at a time. It calls
 * execute, executeMultiple, transaction (then execute, commit, rollback) and close: what is here.
 */
export class SqliteConnection {
  readonly protocol = 'file';
  closed = false;
  #db: Connection;
  readonly #statements = new Map<string, Prepared>();

  constructor(readonly path: string) {
    this.#db = SqliteConnection.#open(path);
  }

  static #open(path: string): Connection {
    try {
      const db = new Database(path);
      db.prepare('SELECT 1').get();
      return db;
    } catch (error) {
      throw toLibsqlError(error);
    }
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
      prepared = { statement, columns: columns.map((column) => column.name), columnTypes: columns.map((column) => column.type ?? '') };
    } catch {
      // raw() refuses a statement that returns no rows.
      prepared = { statement, columns: null, columnTypes: [] };
    }
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value!);
    this.#statements.set(sql, prepared);
    return prepared;
  }

  /** Runs one statement now, on the event loop: nothing else can use the connection meanwhile. */
  run(sql: string, args?: InArgs): ResultSet {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
    try {
      const { statement, columns, columnTypes } = this.#prepare(sql);
      const values = toSqlArgs(args);
      if (columns) return resultSet(columns, columnTypes, (statement.all(values) as unknown[][]).map(fromSqlRow), 0);
      const info = statement.run(values) as { changes: number; lastInsertRowid: number | bigint };
      return resultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (error) {
      this.#statements.delete(sql);
      const reported = toLibsqlError(error);
      if ((reported as { rawCode?: number }).rawCode === SQLITE_BUSY) this.reconnect();
      throw reported;
    }
  }

  async execute(statement: InStatement, args?: InArgs): Promise<ResultSet> {
    return typeof statement === 'string' ? this.run(statement, args) : this.run(statement.sql, statement.args);
  }

  async executeMultiple(sql: string): Promise<void> {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
    try {
      this.#db.exec(sql);
    } catch (error) {
      throw toLibsqlError(error);
    }
  }

  /** A transaction on this connection; after SQLITE_BUSY it is over, since the connection was reopened. */
  async transaction(mode: TransactionMode = 'write'): Promise<Transaction> {
    this.run(BEGIN[mode]);
    const db = this.#db;
    const isOpen = () => this.#db === db && !this.closed && db.inTransaction;
    const end = (sql: 'COMMIT' | 'ROLLBACK') => {
      if (!isOpen()) return;
      try {
        this.run(sql);
      } finally {
        // A COMMIT that failed leaves the transaction open on the shared connection: end it.
        if (isOpen()) {
          try {
            db.exec('ROLLBACK');
          } catch {
            // The error that matters is the COMMIT's.
          }
        }
      }
    };
    return {
      execute: async (statement: InStatement) => {
        if (!isOpen()) throw new LibsqlError('The transaction is closed', 'TRANSACTION_CLOSED');
        return this.execute(statement);
      },
      commit: async () => end('COMMIT'),
      rollback: async () => end('ROLLBACK'),
      get closed() {
        return !isOpen();
      },
    } as unknown as Transaction;
  }

  /** Closes the connection and opens a new one: what is left of a failed statement goes with it. */
  reconnect(): void {
    this.#statements.clear();
    try {
      this.#db.close();
    } finally {
      this.#db = SqliteConnection.#open(this.path);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#statements.clear();
    this.#db.close();
  }

  asClient(): Client {
    return this as unknown as Client;
  }
}

/** The file a `file:` URL names, as @libsql/client reads it: file:./dev.db, file:/abs/app.db, file:///abs/app.db. */
export function sqlitePath(url: string): string {
  if (url === ':memory:') return url;
  if (!url.startsWith('file:')) throw new LibsqlError(`SQLite needs a file: URL, got ${JSON.stringify(url.split(':')[0] + ':')}`, 'URL_INVALID');
  let path = url.slice('file:'.length).split('?')[0]!;
  if (path.startsWith('//')) {
    const slash = path.indexOf('/', 2);
    const host = path.slice(2, slash === -1 ? undefined : slash);
    if (host !== '' && host !== 'localhost') throw new LibsqlError(`Invalid host in file URL: ${JSON.stringify(host)}`, 'URL_INVALID');
    path = slash === -1 ? '' : path.slice(slash);
  }
  return decodeURIComponent(path);
}
