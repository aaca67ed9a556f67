import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../src/modules/admin/admin-roles.js';
import { verifyAccessToken } from '../src/modules/auth/access-tokens.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ IMPERSONATION_MINUTES: '30' });
});
afterAll(async () => {
  await app.close();
});

async function call(path: string, token: string | undefined, method = 'GET', json?: unknown) {
  const response = await app.request(path, { method, token, json, headers: { 'refresh-token-transport': 'cookie' } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function createAdmin() {
  const admin = await createUserWithToken(app, uniqueEmail('admin'));
  await setRole(app.context, admin.user.id, 'admin');
  return admin;
}

/** An admin acting as a new user: both, and the impersonation's token. */
async function impersonation() {
  // A second admin, so that taking the role away from the first never meets LAST_ADMIN.
  await createAdmin();
  const admin = await createAdmin();
  const target = await createUserWithToken(app, uniqueEmail('target'));
  const started = await call(`/api/admin/users/${target.user.id}/impersonate`, admin.token, 'POST', { reason: 'ticket 42: cannot see the invoice' });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return { admin, target, started, token: started.body.token as string };
}

describe('POST /api/admin/users/:id/impersonate', () => {
  it('answers a token response without a refresh token (none in a cookie either), for a session of method impersonation', async () => {
    const { admin, target, started } = await impersonation();
    expect(started.body).toEqual({ token: expect.any(String), tokenType: 'Bearer', expiresIn: expect.any(Number), user: expect.objectContaining({ id: target.user.id }) });
    expect(started.body.expiresIn).toBeGreaterThan(29 * 60);
    expect(started.body.expiresIn).toBeLessThanOrEqual(30 * 60);
    expect(started.headers.getSetCookie()).toEqual([]);
    expect(started.headers.get('cache-control')).toBe('no-store');

    const claims = (await verifyAccessToken(app.context, started.body.token))!;
    const session = await app.context.prisma.session.findUniqueOrThrow({ where: { id: claims.sessionId }, include: { impersonation: true, refreshTokens: true } });
    expect(session).toMatchObject({ userId: target.user.id, method: 'impersonation', refreshTokens: [] });
    expect(session.impersonation).toMatchObject({ adminId: admin.user.id, reason: 'ticket 42: cannot see the invoice' });
    expect(session.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000);
  });

  it('shows in /me (impersonatedBy) and in the user\'s session list, where the user can end it', async () => {
    const { admin, target, token } = await impersonation();
    const me = await call('/api/auth/me', token);
    expect(me.body).toEqual({ user: expect.objectContaining({ id: target.user.id }), impersonatedBy: { id: admin.user.id, email: admin.user.email } });
    expect((await call('/api/auth/me', target.token)).body.impersonatedBy).toBeUndefined();

    const { sessions } = (await call('/api/auth/sessions', target.token)).body;
    const shown = sessions.find((session: { method: string }) => session.method === 'impersonation');
    expect(shown).toMatchObject({ impersonatedBy: { id: admin.user.id, email: admin.user.email }, current: false });
    expect((await call(`/api/auth/sessions/${shown.id}`, target.token, 'DELETE')).status).toBe(204);
    expect((await call('/api/auth/me', token)).status).toBe(401);
  });

  it('never acts as an admin, oneself, an unknown or a banned user, and needs a reason', async () => {
    const admin = await createAdmin();
    const other = await createAdmin();
    const banned = await createUserWithToken(app);
    await call(`/api/admin/users/${banned.user.id}/ban`, admin.token, 'POST', { reason: 'spam' });
    const user = await createUserWithToken(app);
    const refused = [
      [other.user.id, 403, 'FORBIDDEN'],
      [admin.user.id, 403, 'FORBIDDEN'],
      ['nobody', 404, 'NOT_FOUND'],
      [banned.user.id, 403, 'ACCOUNT_BANNED'],
    ] as const;
    for (const [id, status, code] of refused) {
      const reply = await call(`/api/admin/users/${id}/impersonate`, admin.token, 'POST', { reason: 'support' });
      expect([reply.status, reply.body.error.code], id).toEqual([status, code]);
    }
    expect((await call(`/api/admin/users/${user.user.id}/impersonate`, admin.token, 'POST', {})).status).toBe(400);
    expect(await app.context.prisma.session.count({ where: { method: 'impersonation', userId: { in: [other.user.id, admin.user.id, banned.user.id, user.user.id] } } })).toBe(0);
  });
});

describe('what an impersonation session cannot do', () => {
  it('answers 403 IMPERSONATION_FORBIDDEN to ending sessions, logout-all, deleting or exporting the account, and /api/admin', async () => {
    const { target, token } = await impersonation();
    const other = await createUserWithToken(app);
    const forbidden: [string, string, unknown?][] = [
      ['POST', '/api/auth/logout-all'],
      ['POST', '/api/auth/sessions/revoke-others'],
      ['DELETE', `/api/auth/sessions/${(await verifyAccessToken(app.context, target.token))!.sessionId}`],
      ['DELETE', '/api/auth/account', { confirm: target.user.email }],
      ['GET', '/api/auth/account/export'],
      ['GET', '/api/admin/users'],
      ['GET', `/api/admin/users/${other.user.id}`],
      ['POST', `/api/admin/users/${other.user.id}/ban`, { reason: 'x' }],
      ['DELETE', `/api/admin/users/${other.user.id}/sessions`],
      ['POST', `/api/admin/users/${other.user.id}/impersonate`, { reason: 'x' }],
      ['DELETE', `/api/admin/users/${other.user.id}`, {}],
    ];
    for (const [method, path, body] of forbidden) {
      const reply = await call(path, token, method, body);
      expect([reply.status, reply.body?.error?.code], `${method} ${path}`).toEqual([403, 'IMPERSONATION_FORBIDDEN']);
    }
    expect((await call('/api/auth/me', target.token)).status).toBe(200);
    expect((await call('/api/auth/me', other.token)).status).toBe(200);
    expect(await app.context.prisma.user.count({ where: { id: target.user.id } })).toBe(1);
  });

  it('cannot be refreshed: it has no refresh token, and the access token is no refresh token', async () => {
    const { token } = await impersonation();
    const refreshed = await call('/api/auth/refresh', undefined, 'POST', { refreshToken: token });
    // Refused as any token that is no refresh token: 401, or 400 for its length when it is longer
    // than a refresh token may be (512 characters; an ES256 token with the act claim is).
    expect(refreshed.status).toBe(token.length > 512 ? 400 : 401);
    expect(refreshed.body.token).toBeUndefined();
    const cookieOnly = await call('/api/auth/refresh', undefined, 'POST');
    expect(cookieOnly.status).toBe(401);
  });
});

describe('how an impersonation ends', () => {
  it('stop: the impersonation session ends itself (204); an ordinary session cannot call it (403)', async () => {
    const { admin, token } = await impersonation();
    expect((await call('/api/admin/impersonation/stop', admin.token, 'POST')).status).toBe(403);
    expect((await call('/api/admin/impersonation/stop', token, 'POST')).status).toBe(204);
    expect((await call('/api/auth/me', token)).status).toBe(401);
    expect((await call('/api/auth/me', admin.token)).status).toBe(200);
  });

  it("with the admin's own session", async () => {
    const { admin, target, token } = await impersonation();
    expect((await call('/api/auth/logout', admin.token, 'POST')).status).toBe(204);
    const after = await call('/api/auth/me', token);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHENTICATED');
    const { sessions } = (await call('/api/auth/sessions', target.token)).body;
    expect(sessions.map((session: { method: string }) => session.method)).toEqual(['password']);
  });

  it('when the admin loses the role, on the next request', async () => {
    const { admin, token } = await impersonation();
    expect((await call('/api/auth/me', token)).status).toBe(200);
    await setRole(app.context, admin.user.id, 'user');
    expect((await call('/api/auth/me', token)).status).toBe(401);
  });

  it('when the target becomes an admin', async () => {
    const { target, token } = await impersonation();
    await setRole(app.context, target.user.id, 'admin');
    expect((await call('/api/auth/me', token)).status).toBe(401);
  });

  it("at the latest when the admin's session would: it never outlives it", async () => {
    const { admin, token } = await impersonation();
    const adminSession = (await verifyAccessToken(app.context, admin.token))!.sessionId;
    const soon = new Date(Date.now() + 60_000);
    await app.context.prisma.session.update({ where: { id: adminSession }, data: { expiresAt: soon } });
    const target = await createUserWithToken(app);
    const started = await call(`/api/admin/users/${target.user.id}/impersonate`, admin.token, 'POST', { reason: 'support' });
    expect(started.body.expiresIn).toBeLessThanOrEqual(60);
    // An admin session that has expired (not yet deleted) ends its impersonations as well.
    await app.context.prisma.session.update({ where: { id: adminSession }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call('/api/auth/me', token)).status).toBe(401);
    expect((await call('/api/auth/me', started.body.token)).status).toBe(401);
  });

  it('a token naming another admin than the one who started the session is refused', async () => {
    const { target, token } = await impersonation();
    const other = await createAdmin();
    const claims = (await verifyAccessToken(app.context, token))!;
    const { signAccessToken } = await import('../src/modules/auth/access-tokens.js');
    const session = await app.context.prisma.session.findUniqueOrThrow({ where: { id: claims.sessionId } });
    const forged = (await signAccessToken(app.context, session, { actorId: other.user.id, until: session.expiresAt })).token;
    expect((await call('/api/auth/me', forged)).status).toBe(401);
    expect(target.user.id).toBe(session.userId);
  });
});
