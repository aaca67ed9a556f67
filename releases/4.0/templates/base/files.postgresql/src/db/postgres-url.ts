/**
 * Prisma URLs may carry ?schema=name; the pg driver does not understand it, so it is split off
 * and applied as the search path.
 */
export function splitSchema(url: string): { connectionString: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}
