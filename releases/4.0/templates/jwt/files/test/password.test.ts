import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkFrom, startTestApp, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ BCRYPT_COST: '4' });
});
afterAll(async () => {
  await app.close();
});

const password = 'correct horse battery staple';

async function register(email = uniqueEmail(), pass = password) {
  const response = await app.request('/api/auth/register', { method: 'POST', json: { email, password: pass, name: 'Ada' } });
  return { response, body: await response.json(), email };
}

describe('register and login', () => {
  it('registers and returns the token response', async () => {
    const { response, body, email } = await register();
    expect(response.status).toBe(201);
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshToken: expect.any(String), user: { email, name: 'Ada', emailVerified: false } });
    expect(body.refreshExpiresIn).toBeGreaterThan(29 * 86_400);
    expect((await app.request('/api/auth/me', { token: body.token })).status).toBe(200);
  });

  it('starts a session per sign-in that records the method, the user agent (cut at 256) and the client address', async () => {
    const { email } = await register();
    const agent = `Browser/1.0 ${'z'.repeat(300)}`;
    const login = await (await app.request('/api/auth/login', { method: 'POST', json: { email, password }, headers: { 'user-agent': agent } })).json();
    const { sessions } = await (await app.request('/api/auth/sessions', { token: login.token })).json();
    expect(sessions).toHaveLength(2);
    expect(sessions.find((session: { current: boolean }) => session.current)).toMatchObject({ method: 'password', userAgent: agent.slice(0, 256), ip: '127.0.0.1' });
  });

  it('with the cookie transport, a sign-in sets the refresh cookie instead of sending it, and a refresh reads it', async () => {
    const { email } = await register();
    const login = await app.request('/api/auth/login', { method: 'POST', json: { email, password }, headers: { 'refresh-token-transport': 'cookie' } });
    expect(login.status).toBe(200);
    const body = await login.json();
    expect(body).not.toHaveProperty('refreshToken');
    const cookie = login.headers.getSetCookie().find((value) => value.startsWith('gatekit_refresh='))!;
    expect(cookie).toMatch(/HttpOnly/);
    const refreshed = await app.request('/api/auth/refresh', {
      method: 'POST',
      headers: { 'refresh-token-transport': 'cookie', cookie: cookie.split(';')[0]! },
    });
    expect(refreshed.status).toBe(200);
    expect((await app.request('/api/auth/me', { token: (await refreshed.json()).token })).status).toBe(200);
  });

  it('lowercases emails and refuses a second account with 409 EMAIL_TAKEN', async () => {
    const email = uniqueEmail();
    await register(email);
    const { response, body } = await register(`  ${email.toUpperCase()} `);
    expect(response.status).toBe(409);
    expect(body.error.code).toBe('EMAIL_TAKEN');
  });

  it('ignores fields the server owns', async () => {
    const response = await app.request('/api/auth/register', {
      method: 'POST',
      json: { email: uniqueEmail(), password, emailVerified: true, id: 'chosen', twoFactorEnabled: true, role: 'admin' },
    });
    const body = await response.json();
    expect(response.status).toBe(201);
    expect(body.user.emailVerified).toBe(false);
    expect(body.user.id).not.toBe('chosen');
    expect(body.user.twoFactorEnabled).toBe(false);
  });

  it('refuses short, long and common passwords with a reason', async () => {
    for (const bad of ['short', 'x'.repeat(129), 'password123', 'Qwertyuiop']) {
      const { response, body } = await register(uniqueEmail(), bad);
      expect(response.status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.details[0].path).toBe('password');
    }
  });

  it('refuses an address list or a line break in the email', async () => {
    for (const email of ['a@example.com,b@example.com', 'a@example.com\r\nbcc: b@example.com', '"a b"@example.com']) {
      const { response } = await register(email);
      expect(response.status).toBe(400);
    }
  });

  it('logs in, and answers the same for an unknown email and a wrong password', async () => {
    const { email } = await register();
    const ok = await app.request('/api/auth/login', { method: 'POST', json: { email, password } });
    expect(ok.status).toBe(200);
    const wrong = await app.request('/api/auth/login', { method: 'POST', json: { email, password: 'not the password' } });
    const unknown = await app.request('/api/auth/login', { method: 'POST', json: { email: uniqueEmail(), password } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it('does not truncate passwords at 72 bytes', async () => {
    const prefix = 'é'.repeat(40); // 80 bytes
    const { email } = await register(uniqueEmail(), `${prefix}first`);
    const other = await app.request('/api/auth/login', { method: 'POST', json: { email, password: `${prefix}other` } });
    expect(other.status).toBe(401);
  });
});

describe('changing and resetting the password', () => {
  it('changes the password and revokes earlier tokens', async () => {
    const { body, email } = await register();
    const changed = await app.request('/api/auth/password/change', {
      method: 'POST',
      token: body.token,
      json: { currentPassword: password, newPassword: 'a brand new passphrase' },
    });
    expect(changed.status).toBe(200);
    const { token, refreshToken } = await changed.json();
    expect((await app.request('/api/auth/me', { token: body.token })).status).toBe(401);
    expect((await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: body.refreshToken } })).status).toBe(401);
    expect((await app.request('/api/auth/me', { token })).status).toBe(200);
    // The answer is a new session, and it counts as a fresh sign-in.
    const { sessions } = await (await app.request('/api/auth/sessions', { token })).json();
    expect(sessions).toHaveLength(1);
    expect((await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken } })).status).toBe(200);
    const login = await app.request('/api/auth/login', { method: 'POST', json: { email, password: 'a brand new passphrase' } });
    expect(login.status).toBe(200);
  });

  it('resets the password through the mailed link, once', async () => {
    const { body, email } = await register();
    const before = app.mails.length;
    const forgot = await app.request('/api/auth/password/forgot', { method: 'POST', json: { email } });
    expect(forgot.status).toBe(202);
    const link = linkFrom(await waitForMail(app, before + 1), 'http://app.test/reset-password?token=');
    const token = new URL(link).searchParams.get('token');
    const reset = await app.request('/api/auth/password/reset', { method: 'POST', json: { token, password: 'reset passphrase here' } });
    expect(reset.status).toBe(200);
    expect((await app.request('/api/auth/me', { token: body.token })).status).toBe(401);
    expect((await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: body.refreshToken } })).status).toBe(401);
    expect((await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: (await reset.json()).refreshToken } })).status).toBe(200);
    const again = await app.request('/api/auth/password/reset', { method: 'POST', json: { token, password: 'another passphrase' } });
    expect(again.status).toBe(401);
    expect((await again.json()).error.code).toBe('INVALID_TOKEN');
  });

  it('answers forgot the same for an unknown email and sends nothing', async () => {
    const email = uniqueEmail();
    const response = await app.request('/api/auth/password/forgot', { method: 'POST', json: { email } });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Only mail to this address counts: an earlier test's mail, sent after its answer, may still arrive.
    expect(app.mails.filter((mail) => mail.to === email)).toEqual([]);
  });
});

describe('email verification', () => {
  async function verificationToken(token: string, email: string): Promise<string> {
    const before = app.mails.length;
    expect((await app.request('/api/auth/email/verify/send', { method: 'POST', token })).status).toBe(202);
    const mail = await waitForMail(app, before + 1);
    expect(mail.to).toBe(email);
    return new URL(linkFrom(mail, 'http://app.test/verify-email?token=')).searchParams.get('token')!;
  }

  it('verifies the email through the mailed link, for the signed-in owner', async () => {
    const { body, email } = await register();
    const token = await verificationToken(body.token, email);
    expect((await app.request('/api/auth/email/verify', { method: 'POST', json: { token } })).status).toBe(401);
    const verified = await app.request('/api/auth/email/verify', { method: 'POST', token: body.token, json: { token } });
    expect(verified.status).toBe(200);
    expect((await verified.json()).user.emailVerified).toBe(true);
  });

  it("refuses another account's link, and the link still works for its owner", async () => {
    const owner = await register();
    const other = await register();
    const token = await verificationToken(owner.body.token, owner.email);
    const stolen = await app.request('/api/auth/email/verify', { method: 'POST', token: other.body.token, json: { token } });
    expect(stolen.status).toBe(401);
    expect((await stolen.json()).error.code).toBe('INVALID_TOKEN');
    const me = await (await app.request('/api/auth/me', { token: other.body.token })).json();
    expect(me.user.emailVerified).toBe(false);
    expect((await app.request('/api/auth/email/verify', { method: 'POST', token: owner.body.token, json: { token } })).status).toBe(200);
  });
});

describe('provisional accounts', () => {
  it("a reset link takes an unverified account over: the squatter's password and tokens stop working", async () => {
    const { body: squatter, email } = await register();
    const before = app.mails.length;
    await app.request('/api/auth/password/forgot', { method: 'POST', json: { email } });
    const token = new URL(linkFrom(await waitForMail(app, before + 1), 'http://app.test/reset-password?token=')).searchParams.get('token');
    const reset = await app.request('/api/auth/password/reset', { method: 'POST', json: { token, password: 'the owner chose this one' } });
    expect(reset.status).toBe(200);
    const owner = await reset.json();
    expect(owner.user).toMatchObject({ id: squatter.user.id, emailVerified: true });
    expect((await app.request('/api/auth/me', { token: squatter.token })).status).toBe(401);
    expect((await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: squatter.refreshToken } })).status).toBe(401);
    const squatterLogin = await app.request('/api/auth/login', { method: 'POST', json: { email, password } });
    expect(squatterLogin.status).toBe(401);
    expect((await app.request('/api/auth/login', { method: 'POST', json: { email, password: 'the owner chose this one' } })).status).toBe(200);
  });

  it('a password change voids unused reset links', async () => {
    const { body, email } = await register();
    const before = app.mails.length;
    await app.request('/api/auth/password/forgot', { method: 'POST', json: { email } });
    const token = new URL(linkFrom(await waitForMail(app, before + 1), 'http://app.test/reset-password?token=')).searchParams.get('token');
    const changed = await app.request('/api/auth/password/change', { method: 'POST', token: body.token, json: { currentPassword: password, newPassword: 'a changed passphrase' } });
    expect(changed.status).toBe(200);
    expect((await app.request('/api/auth/password/reset', { method: 'POST', json: { token, password: 'too late for this' } })).status).toBe(401);
  });
});

describe('names', () => {
  it.each([
    ['a line break', 'Ada\nClick https://evil.example'],
    ['a control character', 'Ada\u0007'],
    ['a line separator', 'Ada\u2028Lovelace'],
    ['a bidirectional override', 'Ada \u202Egnp.exe'],
    ['101 characters', 'x'.repeat(101)],
  ])('refuses a name with %s', async (_what, name) => {
    const response = await app.request('/api/auth/register', { method: 'POST', json: { email: uniqueEmail(), password, name } });
    expect(response.status).toBe(400);
    expect((await response.json()).error.details[0].path).toBe('name');
  });
});

describe('limits', () => {
  it('limits password changes per client: a stolen token cannot guess the current password for long', async () => {
    const limited = await startTestApp({ BCRYPT_COST: '4', RATE_LIMIT_MAX: '2' });
    try {
      const registered = await limited.request('/api/auth/register', { method: 'POST', json: { email: uniqueEmail(), password } });
      const { token } = await registered.json();
      const guess = () => limited.request('/api/auth/password/change', { method: 'POST', token, json: { currentPassword: 'a wrong guess', newPassword: 'whatever new one' } });
      expect((await guess()).status).toBe(401);
      expect((await guess()).status).toBe(401);
      const third = await guess();
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });

  it('sends at most MAIL_PER_ADDRESS_MAX mails of a kind to one address, and answers the same', async () => {
    const limited = await startTestApp({ BCRYPT_COST: '4', MAIL_PER_ADDRESS_MAX: '2' });
    try {
      const email = uniqueEmail();
      await limited.request('/api/auth/register', { method: 'POST', json: { email, password } });
      for (let i = 0; i < 4; i++) {
        const response = await limited.request('/api/auth/password/forgot', { method: 'POST', json: { email } });
        expect(response.status).toBe(202);
      }
      await waitForMail(limited, 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(limited.mails.filter((mail) => mail.to === email)).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });
});
