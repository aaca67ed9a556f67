import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredRows, startExpiredRowCleanup } from '../src/db/expired-rows.js';
import type { User } from '../src/generated/prisma/client.js';
import { hashToken, randomToken } from '../src/modules/auth/one-time-tokens.js';
import { startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
let user: User;
beforeAll(async () => {
  app = await startTestApp();
  user = await app.context.prisma.user.create({ data: { email: uniqueEmail() } });
});
afterAll(async () => {
  await app.close();
});

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

interface Rows {
  session: string;
  refreshTokens: string[];
  oneTimeTokens: string[];
}

/**
 * A session and, in a session that lives on, two refresh tokens (one used), and two one-time
 * tokens (one used), all expiring at `expiresAt`; returns their ids.
 */
async function rowsExpiringAt(expiresAt: Date): Promise<Rows> {
  const { prisma } = app.context;
  const later = minutesFromNow(60);
  const session = await prisma.session.create({ data: { userId: user.id, method: 'password', expiresAt, maxExpiresAt: expiresAt } });
  const living = await prisma.session.create({ data: { userId: user.id, method: 'password', expiresAt: later, maxExpiresAt: later } });
  const refresh = (rotatedAt: Date | null) => prisma.refreshToken.create({ data: { tokenHash: hashToken(randomToken()), sessionId: living.id, expiresAt, rotatedAt } });
  const refreshTokens = [await refresh(null), await refresh(new Date())];
  const unused = await prisma.oneTimeToken.create({ data: { purpose: 'magic_link', tokenHash: hashToken(randomToken()), email: user.email, expiresAt } });
  const used = await prisma.oneTimeToken.create({ data: { purpose: 'oauth_state', tokenHash: hashToken(randomToken()), usedAt: new Date(), expiresAt } });
  return { session: session.id, refreshTokens: refreshTokens.map((row) => row.id), oneTimeTokens: [unused.id, used.id] };
}

async function remaining(rows: Rows): Promise<number> {
  const { prisma } = app.context;
  return (
    (await prisma.session.count({ where: { id: rows.session } })) +
    (await prisma.refreshToken.count({ where: { id: { in: rows.refreshTokens } } })) +
    (await prisma.oneTimeToken.count({ where: { id: { in: rows.oneTimeTokens } } }))
  );
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100 && !(await check()); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('expired rows', () => {
  it('deletes sessions, refresh tokens and one-time tokens past their expiry, used or not, and keeps the others', async () => {
    const expired = await rowsExpiringAt(minutesFromNow(-1));
    const live = await rowsExpiringAt(minutesFromNow(10));
    expect(await deleteExpiredRows(app.context.prisma)).toBeGreaterThanOrEqual(5);
    expect(await remaining(expired)).toBe(0);
    expect(await remaining(live)).toBe(5);
  });

  it('deletes the refresh tokens of a session with the session', async () => {
    const { prisma } = app.context;
    const session = await prisma.session.create({ data: { userId: user.id, method: 'password', expiresAt: minutesFromNow(-1), maxExpiresAt: minutesFromNow(-1) } });
    const token = await prisma.refreshToken.create({ data: { tokenHash: hashToken(randomToken()), sessionId: session.id, expiresAt: minutesFromNow(10) } });
    await deleteExpiredRows(prisma);
    expect(await prisma.refreshToken.count({ where: { id: token.id } })).toBe(0);
  });

  it('runs at once when started, again at every interval, and stops', async () => {
    const atStart = await rowsExpiringAt(minutesFromNow(-1));
    const cleanup = startExpiredRowCleanup(app.context, 50);
    await waitUntil(async () => (await remaining(atStart)) === 0);
    expect(await remaining(atStart)).toBe(0);

    // Rows that expire while the app runs go at a later run.
    const later = await rowsExpiringAt(minutesFromNow(-1));
    await waitUntil(async () => (await remaining(later)) === 0);
    expect(await remaining(later)).toBe(0);

    await cleanup.stop();
    const afterStop = await rowsExpiringAt(minutesFromNow(-1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await remaining(afterStop)).toBe(5);
    await deleteExpiredRows(app.context.prisma);
  });
});
