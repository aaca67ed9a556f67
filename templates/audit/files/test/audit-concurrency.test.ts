import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { User } from '../src/generated/prisma/client.js';
import { verifyChain } from '../src/modules/audit/audit-chain.js';
import { auditRows, runAuditVerify } from './helpers/audit.js';
import { olderToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// B.16 rule 4: concurrent writers keep one chain. The requests below run at the same moment, in one
// app and across two instances of it on one database (SQLite, or PostgreSQL when the app is made
// for it: the tests run against the app's own database).

/** Users with a fresh session each, made straight in the database, so no event is recorded before the burst. */
async function quietUsers(target: TestApp, count: number): Promise<{ user: User; token: string }[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const user = await target.context.prisma.user.create({ data: { email: uniqueEmail('burst') } });
      return { user, token: await olderToken(target, user, 0) };
    }),
  );
}

/** A request that records one event: an export (recorded apart from any change) or a logout (in the change's transaction). */
function eventful(url: string, token: string, kind: 'export' | 'logout'): Promise<Response> {
  return kind === 'export'
    ? fetch(`${url}/api/auth/account/export`, { headers: { authorization: `Bearer ${token}` } })
    : fetch(`${url}/api/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

async function expectOneChain(target: TestApp, events: number): Promise<void> {
  const rows = await auditRows(target);
  expect(rows).toHaveLength(events);
  expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => index + 1));
  for (let i = 1; i < rows.length; i++) expect(rows[i]!.prevHash, `event #${rows[i]!.seq}`).toBe(rows[i - 1]!.hash);
  expect(await verifyChain(target.context.prisma)).toEqual({ events });
}

describe('concurrent requests', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('40 concurrent requests as the very first events of a new database: one chain, every event in it', async () => {
    const [exporting, leaving] = [await quietUsers(app, 20), await quietUsers(app, 20)];
    expect(await app.context.prisma.auditEvent.count()).toBe(0);
    const answers = await Promise.all([
      ...exporting.map(({ token }) => eventful(app.url, token, 'export')),
      ...leaving.map(({ token }) => eventful(app.url, token, 'logout')),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(20).fill(200), ...Array(20).fill(204)]);
    await expectOneChain(app, 40);
    const verified = await runAuditVerify(app);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('40 events');
  });

  it('concurrent exports alone (each recorded apart from any transaction of a change) keep one chain', async () => {
    const before = await app.context.prisma.auditEvent.count();
    const users = await quietUsers(app, 10);
    const answers = await Promise.all(users.flatMap(({ token }) => [1, 2, 3].map(() => eventful(app.url, token, 'export'))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    await expectOneChain(app, before + 30);
  });
});

describe('two instances on one database', () => {
  let first: TestApp;
  let second: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    first = await startTestApp();
    // A second instance of the app: its own process state and connection pool, the same database.
    const instance = await createApp(first.context.config, { mailer: { configured: false, send: async () => {}, close: () => {} } });
    const server = instance.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    second = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: async () => {
        await new Promise((resolve) => server.close(resolve));
        await instance.close();
      },
    };
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('keeps one chain when both record events at the same moment', async () => {
    const [exporting, leaving] = [await quietUsers(first, 20), await quietUsers(first, 20)];
    const answers = await Promise.all([
      ...exporting.flatMap(({ token }) => [eventful(first.url, token, 'export'), eventful(second.url, token, 'export')]),
      ...leaving.map(({ token }, index) => eventful(index % 2 === 0 ? first.url : second.url, token, 'logout')),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(40).fill(200), ...Array(20).fill(204)]);
    await expectOneChain(first, 60);
  });
});
