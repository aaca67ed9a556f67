import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { createOneTimeToken } from '../src/modules/auth/one-time-tokens.js';
import { createUserWithToken, olderToken, startTestApp, testSignIn, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const deleteAccount = (token: string, json?: unknown) => app.request('/api/auth/account', { method: 'DELETE', token, json });
const exportAccount = (token: string) => app.request('/api/auth/account/export', { token });

describe('DELETE /api/auth/account', () => {
  it('deletes the user and every row of theirs; their tokens stop working and the address is free again', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app);
    const other = await issueTokenResponse(app.context, user, testSignIn);
    await createOneTimeToken(app.context, { purpose: 'verify_email', userId: user.id, email: user.email, ttlSeconds: 60 });
    // A sign-up link of the address, which names no user yet.
    await createOneTimeToken(app.context, { purpose: 'magic_link', email: user.email, ttlSeconds: 60 });

    const response = await deleteAccount(token, { confirm: user.email.toUpperCase() });
    expect(response.status).toBe(204);

    const { prisma } = app.context;
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await prisma.session.count({ where: { userId: user.id } })).toBe(0);
    expect(await prisma.oneTimeToken.count({ where: { OR: [{ userId: user.id }, { email: user.email }] } })).toBe(0);
    for (const stale of [token, other.token]) expect((await app.request('/api/auth/me', { token: stale })).status).toBe(401);
    const refreshed = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken } });
    expect(refreshed.status).toBe(401);

    const again = await prisma.user.create({ data: { email: user.email } });
    expect(again.id).not.toBe(user.id);
  });

  it('needs the address typed as confirmation: anything else is 400 and deletes nothing', async () => {
    const { user, token } = await createUserWithToken(app);
    for (const body of [undefined, {}, { confirm: '' }, { confirm: 'someone-else@example.com' }, { confirm: 42 }]) {
      const response = await deleteAccount(token, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error.code).toBe('VALIDATION_ERROR');
    }
    expect(await app.context.prisma.user.count({ where: { id: user.id } })).toBe(1);
  });

  it('needs a recent sign-in (403 REAUTH_REQUIRED) and a token (401)', async () => {
    const { user } = await createUserWithToken(app);
    const old = await olderToken(app, user, app.context.config.REAUTH_MAX_AGE_MINUTES + 1);
    const stale = await deleteAccount(old, { confirm: user.email });
    expect(stale.status).toBe(403);
    expect((await stale.json()).error.code).toBe('REAUTH_REQUIRED');
    expect((await app.request('/api/auth/account', { method: 'DELETE', json: { confirm: user.email } })).status).toBe(401);
    expect(await app.context.prisma.user.count({ where: { id: user.id } })).toBe(1);
  });

  it('is a revocation: a sign-in whose first factor read the user before the deletion starts no session', async () => {
    const { user, token } = await createUserWithToken(app);
    expect((await deleteAccount(token, { confirm: user.email })).status).toBe(204);
    await expect(issueTokenResponse(app.context, user, testSignIn)).rejects.toMatchObject({ status: 401 });
    expect(await app.context.prisma.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it("deletes only the caller's account", async () => {
    const victim = await createUserWithToken(app);
    const attacker = await createUserWithToken(app);
    const response = await deleteAccount(attacker.token, { confirm: victim.user.email });
    expect(response.status).toBe(400);
    expect(await app.context.prisma.user.count({ where: { id: victim.user.id } })).toBe(1);
    expect((await app.request('/api/auth/me', { token: victim.token })).status).toBe(200);
  });
});

describe('GET /api/auth/account/export', () => {
  it('is one JSON download of the profile, the sessions and each section, with no token in it', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app, uniqueEmail('export'));
    const response = await exportAccount(token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="?account-\d{4}-\d{2}-\d{2}\.json"?$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    const account = JSON.parse(text);
    expect(account).toMatchObject({
      exportedAt: expect.any(String),
      user: { id: user.id, email: user.email, emailVerified: false, lastSignInAt: expect.any(String), updatedAt: expect.any(String) },
      signInMethods: expect.any(Object),
    });
    expect(account.sessions).toEqual([expect.objectContaining({ method: 'password', userAgent: 'vitest', ip: '127.0.0.1' })]);
    for (const secret of [token, refreshToken, app.context.config.JWT_SECRET]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/hash|secret/i);
  });

  it('needs a recent sign-in', async () => {
    const { user } = await createUserWithToken(app);
    const response = await exportAccount(await olderToken(app, user, app.context.config.REAUTH_MAX_AGE_MINUTES + 1));
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe('REAUTH_REQUIRED');
  });
});
