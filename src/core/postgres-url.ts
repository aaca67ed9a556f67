export interface PostgresTarget {
  /** The URL without Prisma's `schema` parameter, for node-postgres. */
  connectionString: string;
  /** `?schema=` of the URL, default public. */
  schema: string;
}

/** Splits Prisma's `?schema=name` off a PostgreSQL URL. */
export function parsePostgresUrl(url: string): PostgresTarget {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') || 'public';
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}
