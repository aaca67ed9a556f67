/**
 * The database db:migration replays the committed migrations on. On SQLite `prisma migrate diff`
 * makes its own, in memory, so there is nothing to pass.
 */
export async function withShadowDatabase<T>(run: (shadowDatabaseUrl: string | undefined) => T): Promise<T> {
  return run(undefined);
}
