export type SqlValue = string | number | boolean | Date | null;

/** The part of Prisma's driver adapter that runs a query: the same connections and locks Prisma uses. */
export interface AdapterQueryable {
  queryRaw(query: { sql: string; args: unknown[]; argTypes: { scalarType: string; arity: 'scalar' }[] }): Promise<{ rows: unknown[][] }>;
}

export interface SqlDialect {
  /** The n-th argument's placeholder (from 1). */
  placeholder(position: number): string;
  /** A table as SQL names it, quoted, with its schema where there is one. */
  table(name: string): string;
}

const argType = (value: SqlValue) => ({
  scalarType: value instanceof Date ? 'datetime' : typeof value === 'number' ? 'int' : typeof value === 'boolean' ? 'boolean' : 'string',
  arity: 'scalar' as const,
});

/**
 * The few reads on the hottest paths (the guard's, the membership's, the members list), written
 * as SQL and run through Prisma's own driver adapter.
 *
 * Why: a Prisma query costs 230 µs of CPU or more before it reaches the database, while the read
 * itself takes about 20 µs (docs/performance.md). Everything else, every write included, goes
 * through Prisma. Queries are written once for every database: `{User}` names a table and `?` an
 * argument; each database's client says how its SQL spells them.
 */
export class SqlReads {
  readonly #texts = new Map<string, string>();

  constructor(
    private readonly adapter: () => Promise<AdapterQueryable>,
    private readonly dialect: SqlDialect,
  ) {}

  /** Runs one SELECT; rows come back as arrays, in the order of the SELECT's columns. */
  async rows(query: string, args: readonly SqlValue[]): Promise<unknown[][]> {
    const adapter = await this.adapter();
    const result = await adapter.queryRaw({ sql: this.#text(query), args: args as SqlValue[], argTypes: args.map(argType) });
    return result.rows;
  }

  #text(query: string): string {
    let text = this.#texts.get(query);
    if (text === undefined) {
      let position = 0;
      text = query.replace(/\{(\w+)\}/g, (_, table: string) => this.dialect.table(table)).replace(/\?/g, () => this.dialect.placeholder(++position));
      this.#texts.set(query, text);
    }
    return text;
  }
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
