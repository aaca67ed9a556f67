import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { applyMigrations } from '../../src/db/migrate.js';

/** A new SQLite file with every migration applied (those in `migrationsDir`, default the app's). */
export async function createTestDatabase(migrationsDir?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const file = path.join(tmpdir(), `app-test-${randomUUID()}.db`);
  const url = `file:${file}`;
  await applyMigrations(url, migrationsDir);
  return {
    url,
    drop: async () => {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}
