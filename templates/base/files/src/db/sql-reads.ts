export type SqlValue = string | number | boolean | Date | null;

/** The part of Prisma's driver adapter that runs a query: the same connections and locks Prisma uses. */
export interface AdapterQueryable {
  queryRaw(query: AdapterQuery): Promise<{ rows: unknown[][] }>;
  /** The same for a read of one row, where the adapter can skip building a row iterator (SQLite). */
  queryFirstRow?(query: AdapterQuery): Promise<{ rows: unknown[][] }>;
}

interface AdapterQuery {
  sql: string;
  args: unknown[];
  argTypes: { scalarType: string; arity: 'scalar' }[];
}

export interface SqlDialect {
  /** The n-th argument's placeholder (from 1). */
  placeholder(position: number): string;
  /** A table as SQL names it, quoted, with its schema where there is one. */
  table(name: string): string;
  /**
   * A SELECT that returns the rows of `select` as one JSON array of arrays of `columns`, where the
   * database hands that over faster than the rows themselves (SQLite). Absent: rows come as they are.
   */
  jsonRows?(select: string, columns: readonly string[]): string;
}

/** The output columns of a read of many rows, and the one its rows are ordered by. */
export interface RowShape {
  columns: readonly string[];
  orderBy: string;
}

const argType = (value: SqlValue) => ({
  scalarType: value instanceof Date ? 'datetime' : typeof value === 'number' ? 'int' : typeof value === 'boolean' ? 'boolean' : 'string',
  arity: 'scalar' as const,
});

/**
 * The few reads on the hottest paths (the guard's, the membership's, the members list), written
 * as SQL and run through Prisma's own driver adapter.
 *
 * Why: a Prisma model query costs about 200 µs of CPU before it reaches the database, while the
 * read itself takes about 20 µs (docs/performance.md). Everything else, every write included, goes
 * through Prisma. Queries are written once for every database: `{User}` names a table and `?` an
 * argument; each database's client says how its SQL spells them.
 */
export class SqlReads {
  readonly #texts = new Map<string, string>();
  readonly #jsonTexts = new Map<string, string>();

  constructor(
    private readonly adapter: () => Promise<AdapterQueryable>,
    private readonly dialect: SqlDialect,
  ) {}

  /** Runs one SELECT; rows come back as arrays, in the order of the SELECT's columns. */
  rows(query: string, args: readonly SqlValue[]): Promise<unknown[][]> {
    return this.#run(this.#text(query), args);
  }

  /** Runs a SELECT of at most one row (by a unique key): that row, or undefined. */
  async row(query: string, args: readonly SqlValue[]): Promise<unknown[] | undefined> {
    const [row] = await this.#run(this.#text(query), args, true);
    return row;
  }

  /**
   * The same for a page of many rows of text, numbers and nulls. On SQLite the database builds the
   * page as one JSON text: one value to hand over instead of one per column per row, about a
   * quarter less CPU for a page of 51 members (docs/performance.md).
   */
  async manyRows(query: string, shape: RowShape, args: readonly SqlValue[]): Promise<unknown[][]> {
    if (!this.dialect.jsonRows) return this.rows(query, args);
    const [row] = await this.#run(this.#text(query, shape), args, true);
    // The JSON array promises no order: the rows are put in the query's order here, in one pass
    // over rows that come in order, rather than by an ORDER BY of the array, which SQLite runs as a
    // second sort (about 10 % of a members page, docs/performance.md).
    return sortedBy(JSON.parse(row![0] as string) as unknown[][], shape.columns.indexOf(shape.orderBy));
  }

  async #run(text: string, args: readonly SqlValue[], firstRowOnly = false): Promise<unknown[][]> {
    const adapter = await this.adapter();
    const query = { sql: text, args: args as SqlValue[], argTypes: args.map(argType) };
    const result = firstRowOnly && adapter.queryFirstRow ? await adapter.queryFirstRow(query) : await adapter.queryRaw(query);
    return result.rows;
  }

  /** The query as this database spells it (wrapped by jsonRows when a shape is given), worked out once. */
  #text(query: string, shape?: RowShape): string {
    const texts = shape ? this.#jsonTexts : this.#texts;
    let text = texts.get(query);
    if (text === undefined) {
      let position = 0;
      text = query.replace(/\{(\w+)\}/g, (_, table: string) => this.dialect.table(table)).replace(/\?/g, () => this.dialect.placeholder(++position));
      if (shape) text = this.dialect.jsonRows!(text, shape.columns);
      texts.set(query, text);
    }
    return text;
  }
}

/**
 * Rows in ascending order of one text column (an id), compared as SQL compares them in binary
 * order: the same for ids, which are ASCII.
 */
function sortedBy(rows: unknown[][], column: number): unknown[][] {
  return rows.sort((a, b) => {
    const x = a[column] as string;
    const y = b[column] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** A boolean column as either database returns it (SQLite: 0 or 1). */
export const sqlBoolean = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 1n;

/** A date column as either database returns it: an ISO 8601 text. */
export const sqlDate = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));

/**
 * A date column as the API writes it (2026-01-02T03:04:05.000Z). SQLite holds dates as
 * 2026-01-02T03:04:05.000+00:00, which only needs its zone rewritten; anything else is parsed.
 */
export const sqlIsoDate = (value: unknown): string =>
  typeof value === 'string' && value.length === 29 && value.endsWith('+00:00') ? `${value.slice(0, 23)}Z` : sqlDate(value).toISOString();

export const sqlText = (value: unknown): string => value as string;

export const sqlTextOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : (value as string));
