import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithToken, linkFrom, startTestApp, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** Asks for a link and returns the token from the mail. */
async function requestLink(target: TestApp, email: string): Promise<string> {
  const before = target.mails.length;
  const response = await target.request('/api/auth/magic-link/send', { method: 'POST', json: { email } });
  expect(response.status).toBe(202);
  expect(await response.json()).toEqual({ ok: true });
  const mail = await waitForMail(target, before + 1);
  expect(mail.to).toBe(email.trim().toLowerCase());
  const link = linkFrom(mail, 'http://app.test/magic-link?token=');
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}

const verify = (target: TestApp, token: string) => target.request('/api/auth/magic-link/verify', { method: 'POST', json: { token } });

describe('sign-in by link', () => {
  it('creates the account on the first link, with the email verified', async () => {
    const email = uniqueEmail();
    const token = await requestLink(app, email);
    expect(token.length).toBeGreaterThanOrEqual(22);
    const response = await verify(app, token);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshToken: expect.any(String), user: { email, emailVerified: true, twoFactorEnabled: false } });
    const me = await app.request('/api/auth/me', { token: body.token });
    expect((await me.json()).user.email).toBe(email);
    const { sessions } = await (await app.request('/api/auth/sessions', { token: body.token })).json();
    expect(sessions).toEqual([expect.objectContaining({ method: 'magic_link', current: true })]);
  });

  it('signs an existing account in again, as the same user', async () => {
    const email = uniqueEmail();
    const first = await (await verify(app, await requestLink(app, email))).json();
    const second = await (await verify(app, await requestLink(app, `  ${email.toUpperCase()} `))).json();
    expect(second.user.id).toBe(first.user.id);
  });

  it('stores only a hash of the token', async () => {
    const token = await requestLink(app, uniqueEmail());
    const rows = await app.context.prisma.oneTimeToken.findMany({ where: { purpose: 'magic_link' } });
    expect(rows.some((row) => row.tokenHash === token)).toBe(false);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('works once', async () => {
    const token = await requestLink(app, uniqueEmail());
    expect((await verify(app, token)).status).toBe(200);
    const again = await verify(app, token);
    expect(again.status).toBe(401);
    expect((await again.json()).error.code).toBe('INVALID_TOKEN');
  });

  it('lets exactly one of two concurrent verifies through', async () => {
    const token = await requestLink(app, uniqueEmail());
    const statuses = (await Promise.all([verify(app, token), verify(app, token), verify(app, token)])).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(2);
  });

  it('refuses an expired link', async () => {
    const token = await requestLink(app, uniqueEmail());
    const { hashToken } = await import('../src/modules/auth/one-time-tokens.js');
    await app.context.prisma.oneTimeToken.update({ where: { tokenHash: hashToken(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const response = await verify(app, token);
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('INVALID_TOKEN');
  });

  it('refuses an unknown token, and a missing or odd one with 400', async () => {
    const unknown = await verify(app, 'x'.repeat(43));
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).error.code).toBe('INVALID_TOKEN');
    for (const json of [{}, { token: '' }, { token: 42 }, { token: ['x'.repeat(43)] }, { token: 'x'.repeat(513) }]) {
      const odd = await app.request('/api/auth/magic-link/verify', { method: 'POST', json });
      expect(odd.status, JSON.stringify(json)).toBe(400);
      expect((await odd.json()).error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers a GET of the link with 405 and leaves the token for the click', async () => {
    const token = await requestLink(app, uniqueEmail());
    // What a mail scanner does when the link points at the API.
    const fetched = await app.request(`/api/auth/magic-link/verify?token=${encodeURIComponent(token)}`);
    expect(fetched.status).toBe(405);
    expect(fetched.headers.get('allow')).toBe('POST');
    expect((await fetched.json()).error.code).toBe('METHOD_NOT_ALLOWED');
    expect((await verify(app, token)).status).toBe(200);
  });
});

describe('provisional accounts', () => {
  it('takes an unverified account over for the owner of the mailbox: same id, earlier tokens revoked', async () => {
    const squatter = await createUserWithToken(app, uniqueEmail());
    const response = await verify(app, await requestLink(app, squatter.user.email));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.user).toMatchObject({ id: squatter.user.id, emailVerified: true });
    expect((await app.request('/api/auth/me', { token: squatter.token })).status).toBe(401);
    expect((await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: squatter.refreshToken } })).status).toBe(401);
    expect((await app.request('/api/auth/me', { token: body.token })).status).toBe(200);
  });

  it('leaves a verified account and its other sessions alone', async () => {
    const owner = await createUserWithToken(app, uniqueEmail(), { emailVerified: true });
    expect((await verify(app, await requestLink(app, owner.user.email))).status).toBe(200);
    expect((await app.request('/api/auth/me', { token: owner.token })).status).toBe(200);
  });

  it('voids unused links when every session is revoked', async () => {
    const owner = await createUserWithToken(app, uniqueEmail(), { emailVerified: true });
    const token = await requestLink(app, owner.user.email);
    expect((await app.request('/api/auth/logout-all', { method: 'POST', token: owner.token })).status).toBe(204);
    expect((await verify(app, token)).status).toBe(401);
  });
});

describe('sending', () => {
  it('answers the same for known and unknown addresses', async () => {
    const known = uniqueEmail();
    await verify(app, await requestLink(app, known));
    const a = await app.request('/api/auth/magic-link/send', { method: 'POST', json: { email: known } });
    const b = await app.request('/api/auth/magic-link/send', { method: 'POST', json: { email: uniqueEmail() } });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(await a.json()).toEqual(await b.json());
  });

  it('builds the link from APP_URL, whatever the request says its host is', async () => {
    const before = app.mails.length;
    const email = uniqueEmail();
    const response = await app.request('/api/auth/magic-link/send', {
      method: 'POST',
      json: { email },
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example' },
    });
    expect(response.status).toBe(202);
    const mail = await waitForMail(app, before + 1);
    expect(mail.text).not.toContain('evil.example');
    expect(linkFrom(mail, 'http://app.test/magic-link?token=')).toMatch(/^http:\/\/app\.test\/magic-link\?token=[\w-]+$/);
  });

  it('refuses anything but one plain address, and mails nothing', async () => {
    const before = app.mails.length;
    for (const email of [
      'a@example.com,b@example.com',
      'a@example.com;b@example.com',
      'a@example.com\r\nbcc: b@example.com',
      '"a,b"@example.com',
      'Someone <a@example.com>',
      'not-an-address',
      '',
    ]) {
      const response = await app.request('/api/auth/magic-link/send', { method: 'POST', json: { email } });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('VALIDATION_ERROR');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Only these addresses count: an earlier test's mail, sent after its answer, may still arrive.
    const mailedTo = app.mails.slice(before).map((mail) => mail.to);
    expect(mailedTo.filter((to) => ['a@example.com', 'b@example.com', 'not-an-address'].some((bad) => to.includes(bad)))).toEqual([]);
  });
});

describe('with MAGIC_LINK_SIGNUP=false', () => {
  let closed: TestApp;
  beforeAll(async () => {
    closed = await startTestApp({ MAGIC_LINK_SIGNUP: 'false' });
  });
  afterAll(async () => {
    await closed.close();
  });

  it('sends nothing to an unknown address, with the same 202', async () => {
    const response = await closed.request('/api/auth/magic-link/send', { method: 'POST', json: { email: uniqueEmail() } });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed.mails).toHaveLength(0);
  });

  it('still signs existing accounts in', async () => {
    const email = uniqueEmail();
    const user = await closed.context.prisma.user.create({ data: { email } });
    const response = await verify(closed, await requestLink(closed, email));
    expect(response.status).toBe(200);
    expect((await response.json()).user).toMatchObject({ id: user.id, emailVerified: true });
  });
});
