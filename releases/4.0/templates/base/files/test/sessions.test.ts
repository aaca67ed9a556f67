import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../src/modules/auth/access-tokens.js';
import { issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { createUserWithToken, startTestApp, testSignIn, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400;
const COOKIE = { 'refresh-token-transport': 'cookie' };

const refresh = (target: TestApp, refreshToken: string) => target.request('/api/auth/refresh', { method: 'POST', json: { refreshToken } });

async function expectRefused(response: Response) {
  expect(response.status).toBe(401);
  expect((await response.json()).error.code).toBe('INVALID_TOKEN');
}

const me = (token: string) => app.request('/api/auth/me', { token });

/** The refresh cookie a response sets: its value and attributes. */
function refreshCookie(response: Response): { value: string; attributes: string[] } | undefined {
  const header = response.headers.getSetCookie().find((cookie) => cookie.startsWith('gatekit_refresh='));
  if (!header) return undefined;
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  return { value: pair!.slice('gatekit_refresh='.length), attributes };
}

describe('POST /api/auth/refresh', () => {
  it('answers with a new access token of the same session and a new refresh token, and uses the old one up', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app);
    const before = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // iat moves in whole seconds
    const response = await refresh(app, refreshToken);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toEqual({
      token: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
      refreshToken: expect.any(String),
      refreshExpiresIn: expect.any(Number),
      user: expect.objectContaining({ id: user.id, email: user.email }),
    });
    expect(body.token).not.toBe(token);
    expect(body.refreshToken).not.toBe(refreshToken);
    expect(Buffer.from(body.refreshToken, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(body.refreshExpiresIn).toBeGreaterThan(30 * DAY - 60);
    expect(body.refreshExpiresIn).toBeLessThanOrEqual(30 * DAY);
    expect(verifyAccessToken(app.context.config, body.token)?.sessionId).toBe(before.id);
    expect((await me(body.token)).status).toBe(200);
    // The access token issued before the refresh lives on until it expires: it is the same session.
    expect((await me(token)).status).toBe(200);

    await expectRefused(await refresh(app, refreshToken));
    const after = await app.context.prisma.session.findUniqueOrThrow({ where: { id: before.id } });
    expect(after.lastUsedAt.getTime()).toBeGreaterThan(before.lastUsedAt.getTime());
    expect(after.createdAt).toEqual(before.createdAt);
    // Only hashes are stored.
    const stored = await app.context.prisma.refreshToken.findMany({ where: { sessionId: before.id } });
    expect(stored).toHaveLength(2);
    expect(stored.map((row) => row.tokenHash)).not.toContain(body.refreshToken);
  });

  it('keeps the sign-in time: a refreshed access token carries the session\'s auth_time, not a new one', async () => {
    const { user, refreshToken } = await createUserWithToken(app);
    const signedInAt = new Date(Date.now() - 20 * 60_000);
    await app.context.prisma.session.updateMany({ where: { userId: user.id }, data: { createdAt: signedInAt } });
    const body = await (await refresh(app, refreshToken)).json();
    expect(verifyAccessToken(app.context.config, body.token)?.signedInAt.getTime()).toBe(Math.floor(signedInAt.getTime() / 1000) * 1000);
  });

  it('gives exactly one 200 for 8 concurrent refreshes with one token', async () => {
    const { refreshToken } = await createUserWithToken(app);
    const responses = await Promise.all(Array.from({ length: 8 }, () => refresh(app, refreshToken)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
    // The winner's session goes on: its refresh token works, and only one new one was issued.
    const winner = await responses.find((response) => response.status === 200)!.json();
    expect((await refresh(app, winner.refreshToken)).status).toBe(200);
  });

  it('refuses an unknown, missing or malformed refresh token', async () => {
    await expectRefused(await refresh(app, 'not-a-token-this-server-issued'));
    await expectRefused(await app.request('/api/auth/refresh', { method: 'POST', json: {} }));
    const wrongType = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: 42 } });
    expect(wrongType.status).toBe(400);
    expect((await wrongType.json()).error.code).toBe('VALIDATION_ERROR');
  });

  it('within the grace, a used refresh token is a plain 401 and the session lives on', async () => {
    const { token, refreshToken } = await createUserWithToken(app);
    const next = await (await refresh(app, refreshToken)).json();
    await expectRefused(await refresh(app, refreshToken));
    expect((await me(token)).status).toBe(200);
    expect((await me(next.token)).status).toBe(200);
    expect((await refresh(app, next.refreshToken)).status).toBe(200);
  });

  it('after the grace, a used refresh token ends its session (and no other)', async () => {
    const strict = await startTestApp({ REFRESH_REUSE_GRACE_SECONDS: '1' });
    try {
      const { user, refreshToken } = await createUserWithToken(strict);
      const otherDevice = await issueTokenResponse(strict.context, user, testSignIn);
      const next = await (await refresh(strict, refreshToken)).json();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await expectRefused(await refresh(strict, refreshToken));
      // The thief's copy and the real client's tokens of that session are dead alike.
      expect((await strict.request('/api/auth/me', { token: next.token })).status).toBe(401);
      await expectRefused(await refresh(strict, next.refreshToken));
      expect((await strict.request('/api/auth/me', { token: otherDevice.token })).status).toBe(200);
      expect((await refresh(strict, otherDevice.refreshToken!)).status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('refuses a refresh token of a session past its idle or absolute end', async () => {
    const idle = await createUserWithToken(app);
    await app.context.prisma.session.updateMany({ where: { userId: idle.user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRefused(await refresh(app, idle.refreshToken));

    // A refresh never moves the end past SESSION_MAX_DAYS after the sign-in.
    const capped = await createUserWithToken(app);
    const maxExpiresAt = new Date(Date.now() + 2 * DAY * 1000);
    await app.context.prisma.session.updateMany({ where: { userId: capped.user.id }, data: { maxExpiresAt } });
    const body = await (await refresh(app, capped.refreshToken)).json();
    expect(body.refreshExpiresIn).toBeGreaterThan(2 * DAY - 60);
    expect(body.refreshExpiresIn).toBeLessThanOrEqual(2 * DAY);
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: capped.user.id } });
    expect(session.expiresAt).toEqual(maxExpiresAt);
  });

  it('starts sessions that end after SESSION_IDLE_DAYS without a refresh, and SESSION_MAX_DAYS at the latest', async () => {
    const short = await startTestApp({ SESSION_IDLE_DAYS: '30', SESSION_MAX_DAYS: '1' });
    try {
      const user = await short.context.prisma.user.create({ data: { email: `short-${Date.now()}@example.com` } });
      const first = await issueTokenResponse(short.context, user, testSignIn);
      expect(first.refreshExpiresIn).toBeGreaterThan(DAY - 60);
      expect(first.refreshExpiresIn).toBeLessThanOrEqual(DAY);
    } finally {
      await short.close();
    }
  });
});

describe('the cookie transport', () => {
  it('sends the refresh token as an HttpOnly, SameSite=Strict cookie on /api/auth, never in the body', async () => {
    const { refreshToken } = await createUserWithToken(app);
    const response = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken }, headers: COOKIE });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).not.toHaveProperty('refreshToken');
    expect(body.refreshExpiresIn).toBeGreaterThan(0);
    const cookie = refreshCookie(response)!;
    expect(cookie.value.length).toBeGreaterThanOrEqual(43);
    expect(cookie.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/api/auth', `Max-Age=${body.refreshExpiresIn}`]));
    // Over plain http the cookie cannot be Secure.
    expect(cookie.attributes).not.toContain('Secure');
    expect(JSON.stringify(body)).not.toContain(cookie.value);
  });

  it('refreshes from the cookie only with the header: a cross-site form or a plain request refreshes nothing', async () => {
    const { refreshToken } = await createUserWithToken(app);
    const first = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken }, headers: COOKIE });
    const cookie = `gatekit_refresh=${refreshCookie(first)!.value}`;

    await expectRefused(await app.request('/api/auth/refresh', { method: 'POST', headers: { cookie } }));
    const form = await app.request('/api/auth/refresh', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'a=b',
    });
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(refreshCookie(form)).toBeUndefined();

    // The cookie was not used up by either.
    const second = await app.request('/api/auth/refresh', { method: 'POST', headers: { ...COOKIE, cookie } });
    expect(second.status).toBe(200);
    expect(refreshCookie(second)!.value).not.toBe(refreshCookie(first)!.value);
    expect((await me((await second.json()).token)).status).toBe(200);
  });

  it('is Secure when API_URL is https', async () => {
    const secure = await startTestApp({ API_URL: 'https://api.example.test' });
    try {
      const { refreshToken } = await createUserWithToken(secure);
      const response = await secure.request('/api/auth/refresh', { method: 'POST', json: { refreshToken }, headers: COOKIE });
      expect(refreshCookie(response)!.attributes).toContain('Secure');
    } finally {
      await secure.close();
    }
  });

  it('logout clears the cookie', async () => {
    const { token } = await createUserWithToken(app);
    const response = await app.request('/api/auth/logout', { method: 'POST', token, headers: COOKIE });
    expect(response.status).toBe(204);
    const cleared = refreshCookie(response)!;
    expect(cleared.value).toBe('');
    expect(cleared.attributes).toEqual(expect.arrayContaining(['Path=/api/auth', 'HttpOnly', 'SameSite=Strict']));
    expect(cleared.attributes.some((attribute) => attribute.startsWith('Expires=Thu, 01 Jan 1970'))).toBe(true);
  });
});

describe('the device list', () => {
  it('lists the user\'s live sessions with the current one marked', async () => {
    const { user, token } = await createUserWithToken(app);
    const longAgent = `Mozilla/5.0 ${'x'.repeat(400)}`;
    await issueTokenResponse(app.context, user, { method: 'magic_link', userAgent: longAgent.slice(0, 256), ip: '203.0.113.9' });
    await createUserWithToken(app); // someone else's session is not listed
    const response = await app.request('/api/auth/sessions', { token });
    expect(response.status).toBe(200);
    const { sessions } = await response.json();
    expect(sessions).toHaveLength(2);
    const current = sessions.find((session: { current: boolean }) => session.current);
    const currentId = verifyAccessToken(app.context.config, token)!.sessionId;
    expect(current).toEqual({
      id: currentId,
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      expiresAt: expect.any(String),
      method: 'password',
      userAgent: 'vitest',
      ip: '127.0.0.1',
      current: true,
    });
    const other = sessions.find((session: { current: boolean }) => !session.current);
    expect(other).toMatchObject({ method: 'magic_link', ip: '203.0.113.9', current: false });
    expect(other.userAgent).toHaveLength(256);
  });

  it('shows what the sign-in recorded: neither a refresh nor a later request rewrites it', async () => {
    const { token, refreshToken } = await createUserWithToken(app);
    await refresh(app, refreshToken);
    const { sessions } = await (await app.request('/api/auth/sessions', { token, headers: { 'user-agent': 'a'.repeat(300) } })).json();
    // The list shows what the sign-in recorded; a refresh does not rewrite it.
    expect(sessions[0]).toMatchObject({ userAgent: 'vitest', ip: '127.0.0.1' });
  });

  it('ends one session; another user\'s session id is 404 and stays alive', async () => {
    const { user, token } = await createUserWithToken(app);
    const laptop = await issueTokenResponse(app.context, user, testSignIn);
    const stranger = await createUserWithToken(app);
    const laptopId = verifyAccessToken(app.context.config, laptop.token)!.sessionId;
    const strangerId = verifyAccessToken(app.context.config, stranger.token)!.sessionId;

    const refused = await app.request(`/api/auth/sessions/${strangerId}`, { method: 'DELETE', token });
    expect(refused.status).toBe(404);
    expect((await refused.json()).error.code).toBe('NOT_FOUND');
    expect((await me(stranger.token)).status).toBe(200);
    expect((await app.request('/api/auth/sessions/no-such-session', { method: 'DELETE', token })).status).toBe(404);

    expect((await app.request(`/api/auth/sessions/${laptopId}`, { method: 'DELETE', token })).status).toBe(204);
    expect((await me(laptop.token)).status).toBe(401);
    await expectRefused(await refresh(app, laptop.refreshToken!));
    expect((await me(token)).status).toBe(200);
  });

  it('revoke-others ends every session but the current one', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app);
    const others = [await issueTokenResponse(app.context, user, testSignIn), await issueTokenResponse(app.context, user, testSignIn)];
    expect((await app.request('/api/auth/sessions/revoke-others', { method: 'POST', token })).status).toBe(204);
    for (const other of others) {
      expect((await me(other.token)).status).toBe(401);
      await expectRefused(await refresh(app, other.refreshToken!));
    }
    expect((await me(token)).status).toBe(200);
    expect((await refresh(app, refreshToken)).status).toBe(200);
    const { sessions } = await (await app.request('/api/auth/sessions', { token })).json();
    expect(sessions).toHaveLength(1);
  });

  it('needs a valid access token', async () => {
    for (const [method, path] of [['GET', '/api/auth/sessions'], ['DELETE', '/api/auth/sessions/x'], ['POST', '/api/auth/sessions/revoke-others']] as const) {
      expect((await app.request(path, { method })).status).toBe(401);
    }
  });

  it('logout ends the session: its refresh token stops working too', async () => {
    const { token, refreshToken } = await createUserWithToken(app);
    expect((await app.request('/api/auth/logout', { method: 'POST', token })).status).toBe(204);
    await expectRefused(await refresh(app, refreshToken));
  });

  it('logout-all ends every session: no refresh token of the user works', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app);
    const other = await issueTokenResponse(app.context, user, testSignIn);
    expect((await app.request('/api/auth/logout-all', { method: 'POST', token })).status).toBe(204);
    await expectRefused(await refresh(app, refreshToken));
    await expectRefused(await refresh(app, other.refreshToken!));
  });
});
