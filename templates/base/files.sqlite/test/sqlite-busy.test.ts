import { spawn } from 'node:child_process';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.js';

/** Another process that takes the database's write lock, writes a row, and commits `ms` later. */
function holdWriteLock(url: string, ms: number): { locked: Promise<void>; exited: Promise<number | null> } {
  const script = `
    import { createClient } from '@libsql/client';
    const client = createClient({ url: ${JSON.stringify(url)} });
    const lock = await client.transaction('write');
    await lock.execute({ sql: 'INSERT INTO "User" ("id", "email", "updatedAt") VALUES (?, ?, ?)', args: ['held-by-other', 'held@example.com', Date.now()] });
    console.log('locked');
    await new Promise((resolve) => setTimeout(resolve, ${ms}));
    await lock.commit();
    client.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const locked = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { locked, exited };
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('SQLite held by another process', () => {
  it('runs the database in WAL mode', async () => {
    const [{ journal_mode }] = await app.context.prisma.$queryRaw<{ journal_mode: string }[]>`PRAGMA journal_mode`;
    expect(journal_mode).toBe('wal');
  });

  // Before 4.1 there was no busy timeout: a write while another process held the lock for a moment
  // failed at once (a 503 for a sign-in that only had to wait). The lock is held by another process,
  // as a second instance would: libSQL waits for it inside the query, so this one cannot release it.
  it("a write waits for another process's short lock instead of failing, and reads do not wait at all", async () => {
    const { prisma, config } = app.context;
    const holder = holdWriteLock(config.DATABASE_URL, 300);
    await holder.locked;
    expect(await prisma.user.count({ where: { email: 'held@example.com' } })).toBe(0);
    const created = await prisma.user.create({ data: { email: 'waited-for-lock@example.com' } });
    expect(await holder.exited).toBe(0);
    expect(created.email).toBe('waited-for-lock@example.com');
    expect(await prisma.user.count({ where: { email: { in: ['held@example.com', 'waited-for-lock@example.com'] } } })).toBe(2);
  });

  // Without src/db/sqlite-busy.ts the write refused with SQLITE_BUSY stays in progress on the app's
  // connection: the transaction below fails with "cannot commit transaction - SQL statements in
  // progress" and the other connection cannot write while the app keeps its read open.
  it('refuses a write while the lock is held past the busy timeout, then commits again and leaves the file unlocked', async () => {
    const { prisma, config } = app.context;
    const other = createClient({ url: config.DATABASE_URL });
    try {
      const lock = await other.transaction('write');
      await expect(prisma.user.create({ data: { email: 'while-locked@example.com' } })).rejects.toThrow();
      await lock.rollback();

      expect(await prisma.user.count({ where: { email: 'while-locked@example.com' } })).toBe(0);
      const created = await prisma.$transaction(async (tx) => tx.user.create({ data: { email: 'after-lock@example.com' } }));
      expect(created.email).toBe('after-lock@example.com');
      const removed = await other.execute({ sql: 'DELETE FROM "User" WHERE "email" = ?', args: ['after-lock@example.com'] });
      expect(removed.rowsAffected).toBe(1);
    } finally {
      other.close();
    }
  });
});
