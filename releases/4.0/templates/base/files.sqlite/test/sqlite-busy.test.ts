import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('SQLite held by another process', () => {
  // Without src/db/sqlite-busy.ts the write refused with SQLITE_BUSY stays in progress on the app's
  // connection: the transaction below fails with "cannot commit transaction - SQL statements in
  // progress" and the other connection cannot write while the app keeps its read open.
  it('refuses a write while the lock is held, then commits again and leaves the file unlocked', async () => {
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
