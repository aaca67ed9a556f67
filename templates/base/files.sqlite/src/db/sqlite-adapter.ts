import { Buffer } from 'node:buffer';
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type ArgType,
  type ColumnType,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import { primaryCode, SqliteConnection, sqlitePath, type SqliteResult } from './sqlite-connection.js';

const ADAPTER_NAME = 'gatekit-sqlite';
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Prisma's column type for a declared SQLite type; null where the values must tell. */
const DECLARED_TYPES: Record<string, ColumnType> = {
  DECIMAL: ColumnTypeEnum.Numeric,
  FLOAT: ColumnTypeEnum.Float,
  DOUBLE: ColumnTypeEnum.Double,
  'DOUBLE PRECISION': ColumnTypeEnum.Double,
  NUMERIC: ColumnTypeEnum.Double,
  REAL: ColumnTypeEnum.Double,
  TINYINT: ColumnTypeEnum.Int32,
  SMALLINT: ColumnTypeEnum.Int32,
  MEDIUMINT: ColumnTypeEnum.Int32,
  INT: ColumnTypeEnum.Int32,
  INTEGER: ColumnTypeEnum.Int32,
  SERIAL: ColumnTypeEnum.Int32,
  INT2: ColumnTypeEnum.Int32,
  BIGINT: ColumnTypeEnum.Int64,
  'UNSIGNED BIG INT': ColumnTypeEnum.Int64,
  INT8: ColumnTypeEnum.Int64,
  DATETIME: ColumnTypeEnum.DateTime,
  TIMESTAMP: ColumnTypeEnum.DateTime,
  TIME: ColumnTypeEnum.Time,
  DATE: ColumnTypeEnum.Date,
  TEXT: ColumnTypeEnum.Text,
  CLOB: ColumnTypeEnum.Text,
  CHARACTER: ColumnTypeEnum.Text,
  VARCHAR: ColumnTypeEnum.Text,
  'VARYING CHARACTER': ColumnTypeEnum.Text,
  NCHAR: ColumnTypeEnum.Text,
  'NATIVE CHARACTER': ColumnTypeEnum.Text,
  NVARCHAR: ColumnTypeEnum.Text,
  BLOB: ColumnTypeEnum.Bytes,
  BOOLEAN: ColumnTypeEnum.Boolean,
  JSONB: ColumnTypeEnum.Json,
};

/** A column without a declared type (an expression) takes the type of its first non-null value. */
function inferredType(rows: unknown[][], column: number): ColumnType {
  for (const row of rows) {
    const value = row[column];
    if (value === null) continue;
    if (typeof value === 'string') return ColumnTypeEnum.Text;
    if (typeof value === 'number' || typeof value === 'bigint') return ColumnTypeEnum.UnknownNumber;
    if (value instanceof Uint8Array) return ColumnTypeEnum.Bytes;
  }
  return ColumnTypeEnum.Int32;
}

/** Integers as numbers (an error if one does not fit), dates as text, blobs as plain bytes. */
function toResultValue(value: unknown, type: ColumnType): unknown {
  if (typeof value === 'bigint') {
    if (value < MIN_SAFE || value > MAX_SAFE) throw new RangeError('Received an integer that cannot be represented as a JavaScript number');
    return type === ColumnTypeEnum.DateTime ? new Date(Number(value)).toISOString() : Number(value);
  }
  if (typeof value === 'number') {
    if (type === ColumnTypeEnum.DateTime) return new Date(value).toISOString();
    return (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) && !Number.isInteger(value) ? Math.trunc(value) : value;
  }
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** Each prepared statement's declared column types, mapped once (null where the values must tell). */
const mappedTypes = new WeakMap<string[], (ColumnType | null)[]>();

function columnTypesOf(declaredTypes: string[], rows: unknown[][]): ColumnType[] {
  let mapped = mappedTypes.get(declaredTypes);
  if (!mapped) {
    mapped = declaredTypes.map((declared) => DECLARED_TYPES[declared.toUpperCase()] ?? null);
    mappedTypes.set(declaredTypes, mapped);
  }
  return mapped.map((type, column) => type ?? inferredType(rows, column));
}

function toResultSet({ columns, declaredTypes, rows, lastInsertRowid }: SqliteResult): SqlResultSet {
  const columnTypes = columnTypesOf(declaredTypes, rows);
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      if (typeof value !== 'string' && value !== null) row[i] = toResultValue(value, columnTypes[i]!);
    }
  }
  return { columnNames: columns, columnTypes, rows, lastInsertId: lastInsertRowid?.toString() };
}

/** An argument as SQLite stores it: dates as ISO 8601 text with +00:00, as Prisma's libSQL adapter writes them. */
function toSqlArg(arg: unknown, type: ArgType | undefined): unknown {
  if (arg === null || arg === undefined) return null;
  if (typeof arg === 'string') {
    switch (type?.scalarType) {
      case 'bigint':
        return BigInt(arg);
      case 'decimal':
        return Number.parseFloat(arg);
      case 'datetime':
        return toSqlArg(new Date(arg), type);
      case 'bytes':
        return Buffer.from(arg, 'base64');
      default:
        return arg;
    }
  }
  if (arg instanceof Date) return arg.toISOString().replace('Z', '+00:00');
  if (typeof arg === 'boolean') return arg ? 1 : 0;
  if (typeof arg === 'number' && !Number.isFinite(arg)) throw new RangeError('Only finite numbers can be passed to the database');
  if (arg instanceof ArrayBuffer) return Buffer.from(arg);
  return arg;
}

const fieldsOf = (message: string) =>
  message
    .split('constraint failed: ')
    .at(1)
    ?.split(', ')
    .map((field) => field.split('.').pop()!);

/** The driver's error as Prisma reads it (a unique violation becomes P2002, SQLITE_BUSY a timeout...). */
export function toAdapterError(error: unknown): unknown {
  const rawCode = (error as { rawCode?: unknown } | null)?.rawCode;
  if (!(error instanceof Error) || typeof rawCode !== 'number') return error;
  const { message } = error;
  const original = { originalCode: String(rawCode), originalMessage: message };
  switch (rawCode) {
    case 1555: // SQLITE_CONSTRAINT_PRIMARYKEY
    case 2067: {
      // SQLITE_CONSTRAINT_UNIQUE
      const fields = fieldsOf(message);
      const table = message.split('constraint failed: ').at(1)?.split(', ')[0]?.split('.').slice(0, -1).join('.') || undefined;
      return new DriverAdapterError({ ...original, kind: 'UniqueConstraintViolation', constraint: fields ? { fields } : undefined, table });
    }
    case 1299: {
      // SQLITE_CONSTRAINT_NOTNULL
      const fields = fieldsOf(message);
      return new DriverAdapterError({ ...original, kind: 'NullConstraintViolation', constraint: fields ? { fields } : undefined });
    }
    case 787: // SQLITE_CONSTRAINT_FOREIGNKEY
    case 1811: // SQLITE_CONSTRAINT_TRIGGER
      return new DriverAdapterError({ ...original, kind: 'ForeignKeyConstraintViolation', constraint: { foreignKey: {} } });
  }
  if (primaryCode(error) === 5) return new DriverAdapterError({ ...original, kind: 'SocketTimeout' });
  if (message.startsWith('no such table')) return new DriverAdapterError({ ...original, kind: 'TableDoesNotExist', table: message.split(': ').at(1) });
  if (message.startsWith('no such column')) return new DriverAdapterError({ ...original, kind: 'ColumnNotFound', column: message.split(': ').at(1) });
  if (message.includes('has no column named ')) {
    return new DriverAdapterError({ ...original, kind: 'ColumnNotFound', column: message.split('has no column named ').at(1) });
  }
  return new DriverAdapterError({ ...original, kind: 'sqlite', extendedCode: rawCode, message });
}

function run(connection: SqliteConnection, query: SqlQuery, firstRowOnly = false): SqliteResult {
  const args = query.args.map((arg, i) => toSqlArg(arg, query.argTypes[i]));
  try {
    return firstRowOnly ? connection.queryFirst(query.sql, args) : connection.query(query.sql, args);
  } catch (error) {
    throw toAdapterError(error);
  }
}

/**
 * Who has the connection: one transaction at a time, in the order they asked. A query outside a
 * transaction runs at once when nobody holds it (the driver is synchronous, so nothing can come
 * between its statement and its answer), and waits its turn otherwise, so it never sees another
 * request's uncommitted writes.
 */
class ConnectionLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  get held(): boolean {
    return this.#held;
  }

  async acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the connection to the next in line, if any. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

class SqliteTransaction implements Transaction {
  readonly provider = 'sqlite';
  readonly adapterName = ADAPTER_NAME;
  readonly options = { usePhantomQuery: true };
  readonly #openings: number;
  #ended = false;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly release: () => void,
  ) {
    this.#openings = connection.openings;
  }

  /** Open until it ends, or until SQLITE_BUSY made the connection reopen (which rolled it back). */
  #open(): boolean {
    return !this.#ended && this.connection.openings === this.#openings && this.connection.inTransaction;
  }

  #run(query: SqlQuery): SqliteResult {
    if (!this.#open()) throw new DriverAdapterError({ kind: 'TransactionAlreadyClosed', cause: 'The transaction was rolled back when the database was busy' });
    return run(this.connection, query);
  }

  async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return toResultSet(this.#run(query));
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    return this.#run(query).changes;
  }

  async commit(): Promise<void> {
    if (this.#ended) return;
    try {
      if (!this.#open()) throw new DriverAdapterError({ kind: 'TransactionAlreadyClosed', cause: 'The transaction was rolled back when the database was busy' });
      run(this.connection, { sql: 'COMMIT', args: [], argTypes: [] });
    } finally {
      this.#end();
    }
  }

  async rollback(): Promise<void> {
    if (this.#ended) return;
    this.#end();
  }

  /** Ends the transaction, rolling back whatever a failed COMMIT left open, and hands the connection on. */
  #end(): void {
    try {
      if (this.#open()) this.connection.exec('ROLLBACK');
    } catch {
      // Nothing more can be done: the next BEGIN reports the connection's state.
    } finally {
      this.#ended = true;
      this.release();
    }
  }

  async createSavepoint(name: string): Promise<void> {
    this.#run({ sql: `SAVEPOINT ${name}`, args: [], argTypes: [] });
  }

  async rollbackToSavepoint(name: string): Promise<void> {
    this.#run({ sql: `ROLLBACK TO ${name}`, args: [], argTypes: [] });
  }

  async releaseSavepoint(name: string): Promise<void> {
    this.#run({ sql: `RELEASE SAVEPOINT ${name}`, args: [], argTypes: [] });
  }
}

/** Prisma's driver adapter on one SqliteConnection. */
export class SqliteAdapter implements SqlDriverAdapter {
  readonly provider = 'sqlite';
  readonly adapterName = ADAPTER_NAME;
  readonly #lock = new ConnectionLock();

  constructor(readonly connection: SqliteConnection) {}

  /** Runs work now if no transaction holds the connection, else when its turn comes. */
  #whenFree<T>(work: () => T): Promise<T> {
    if (!this.#lock.held) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#lock.acquire().then(() => {
      try {
        return work();
      } finally {
        this.#lock.release();
      }
    });
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.#whenFree(() => toResultSet(run(this.connection, query)));
  }

  /**
   * queryRaw for a SELECT of which only the first row is wanted (the app's SQL reads of one row, in
   * db/sql-reads.ts). Not part of Prisma's interface: Prisma never calls it.
   */
  queryFirstRow(query: SqlQuery): Promise<SqlResultSet> {
    return this.#whenFree(() => toResultSet(run(this.connection, query, true)));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.#whenFree(() => run(this.connection, query).changes);
  }

  executeScript(script: string): Promise<void> {
    return this.#whenFree(() => {
      try {
        this.connection.exec(script);
      } catch (error) {
        throw toAdapterError(error);
      }
    });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    if (isolationLevel && isolationLevel !== 'SERIALIZABLE') throw new DriverAdapterError({ kind: 'InvalidIsolationLevel', level: isolationLevel });
    await this.#lock.acquire();
    try {
      run(this.connection, { sql: 'BEGIN DEFERRED', args: [], argTypes: [] });
    } catch (error) {
      this.#lock.release();
      throw error;
    }
    return new SqliteTransaction(this.connection, () => this.#lock.release());
  }

  async dispose(): Promise<void> {
    this.connection.close();
  }
}

/** What Prisma is given: it opens the connection when it first needs it. */
export class SqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'sqlite';
  readonly adapterName = ADAPTER_NAME;

  constructor(private readonly url: string) {}

  async connect(): Promise<SqlDriverAdapter> {
    return new SqliteAdapter(new SqliteConnection(sqlitePath(this.url)));
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    return new SqliteAdapter(new SqliteConnection(':memory:'));
  }
}
