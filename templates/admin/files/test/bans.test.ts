import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredRows } from '../src/db/expired-rows.js';
import { setRole } from '../src/modules/admin/admin-roles.js';
import { completeLogin, issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { createUserWithToken, startTestApp, testSignIn, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp();
  const admin = await createUserWithToken(app, uniqueEmail('admin'));
  await setRole(app.context, admin.user.id, 'admin');
  adminToken = admin.token;
});
afterAll(async () => {
  await app.close();
});

const ban = (userId: string, body: Record<string, unknown>) => app.request(`/api/admin/users/${userId}/ban`, { method: 'POST', token: adminToken, json: body });

describe('a banned user', () => {
  it('starts no session by any sign-in (403 ACCOUNT_BANNED), whose message gives the end of a timed ban but never the reason', async () => {
    const { user } = await createUserWithToken(app);
    expect((await ban(user.id, { reason: 'a secret reason', expiresInHours: 2 })).status).toBe(200);
    const { expiresAt } = await app.context.prisma.userBan.findUniqueOrThrow({ where: { userId: user.id } });
    for (const signIn of [() => completeLogin(app.context, user, testSignIn), () => issueTokenResponse(app.context, user, testSignIn)]) {
      const error = await signIn().then(
        () => undefined,
        (refusal: unknown) => refusal,
      );
      expect(error).toMatchObject({ status: 403, code: 'ACCOUNT_BANNED', message: `This account is banned until ${expiresAt!.toISOString()}.` });
      expect((error as Error).message).not.toContain('secret');
    }
    expect(await app.context.prisma.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it('whose sign-in was running when the ban landed gets 403 ACCOUNT_BANNED, not a session', async () => {
    const { user } = await createUserWithToken(app);
    // `user` is the account as the first factor read it, before the ban.
    expect((await ban(user.id, { reason: 'abuse' })).status).toBe(200);
    await expect(issueTokenResponse(app.context, user, testSignIn)).rejects.toMatchObject({ code: 'ACCOUNT_BANNED', message: 'This account is banned.' });
    expect(await app.context.prisma.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it('cannot refresh: the ban ended the session (401), and a session that somehow lives on is refused too (403)', async () => {
    const { user, refreshToken } = await createUserWithToken(app);
    expect((await ban(user.id, { reason: 'abuse' })).status).toBe(200);
    const ended = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken } });
    expect(ended.status).toBe(401);

    // A ban written straight into the database leaves the sessions alone: refresh still checks it.
    const other = await createUserWithToken(app);
    await app.context.prisma.userBan.create({ data: { userId: other.user.id, reason: 'by hand' } });
    const refused = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: other.refreshToken } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('ACCOUNT_BANNED');
  });

  it('signs in again once a timed ban has ended, by itself; the ended ban is then tidied away', async () => {
    const { user } = await createUserWithToken(app);
    expect((await ban(user.id, { reason: 'cool down', expiresInHours: 1 })).status).toBe(200);
    await app.context.prisma.userBan.update({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    // A new sign-in: its first factor reads the account as the ban left it.
    const current = await app.context.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    const { token } = await issueTokenResponse(app.context, current, testSignIn);
    expect((await app.request('/api/auth/me', { token })).status).toBe(200);
    const listed = await app.request(`/api/admin/users/${user.id}`, { token: adminToken });
    expect((await listed.json()).user).toMatchObject({ banned: false, banReason: null, banExpiresAt: null });
    await deleteExpiredRows(app.context.prisma);
    expect(await app.context.prisma.userBan.count({ where: { userId: user.id } })).toBe(0);
  });
});
