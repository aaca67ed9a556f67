import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithToken, linkFrom, startTestApp, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ AUTH_SECRET: 'auth-js-secret-for-tests-0123456789abcdef' });
});
afterAll(async () => {
  await app.close();
});

/** The cookies a browser would keep, by name. */
class Browser {
  private readonly cookies = new Map<string, string>();

  async go(path: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await app.request(path, { ...init, redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) } });
    for (const line of response.headers.getSetCookie()) {
      const [name, ...value] = line.split(';')[0]!.split('=');
      this.cookies.set(name!, value.join('='));
    }
    return response;
  }
}

/** Email sign-in through Auth.js: the CSRF token, the form, the mailed link. Returns the browser holding the session. */
async function signInByEmail(email: string): Promise<Browser> {
  const browser = new Browser();
  const { csrfToken } = await (await browser.go('/api/auth/authjs/csrf')).json();
  const before = app.mails.length;
  const started = await browser.go('/api/auth/authjs/signin/email', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, csrfToken, callbackUrl: 'http://app.test/welcome' }) });
  expect(started.status).toBe(302);
  const link = new URL(linkFrom(await waitForMail(app, before + 1), `${app.context.config.API_URL}/api/auth/authjs/callback/email?`));
  const landed = await browser.go(`${link.pathname}${link.search}`);
  expect(landed.status).toBe(302);
  expect(landed.headers.get('location')).toBe('http://app.test/welcome');
  return browser;
}

const exchange = (browser: Browser) => browser.go('/api/auth/authjs/exchange', { method: 'POST' });

describe('Auth.js email sign-in and POST /api/auth/authjs/exchange', () => {
  it('turns the Auth.js session into a token response with the address verified, as the same user each time', async () => {
    const email = uniqueEmail('authjs');
    const first = await exchange(await signInByEmail(email));
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toMatchObject({ tokenType: 'Bearer', user: { email, emailVerified: true } });
    const again = await (await exchange(await signInByEmail(email))).json();
    expect(again.user.id).toBe(body.user.id);
  });

  it('takes over an account whose address was never verified', async () => {
    const squatter = await createUserWithToken(app, uniqueEmail('authjs'));
    const response = await exchange(await signInByEmail(squatter.user.email));
    expect((await response.json()).user).toMatchObject({ id: squatter.user.id, emailVerified: true });
    expect((await app.request('/api/auth/me', { token: squatter.token })).status).toBe(401);
  });

  it('logout ends the exchanged Auth.js session: the browser cannot exchange it again', async () => {
    const browser = await signInByEmail(uniqueEmail('authjs'));
    const { token } = await (await exchange(browser)).json();
    const other = await signInByEmail((await app.request('/api/auth/me', { token }).then((me) => me.json())).user.email);
    expect((await app.request('/api/auth/logout', { method: 'POST', token })).status).toBe(204);
    const again = await exchange(browser);
    expect(again.status).toBe(401);
    expect((await again.json()).error.code).toBe('INVALID_TOKEN');
    // A session of the user that was never exchanged was not the one that signed in: it stays.
    expect((await exchange(other)).status).toBe(200);
  });

  it('answers 401 INVALID_TOKEN without an Auth.js session', async () => {
    const response = await exchange(new Browser());
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('INVALID_TOKEN');
  });

  it('answers 404 PROVIDER_NOT_CONFIGURED under /api/auth/authjs while AUTH_SECRET is empty', async () => {
    const bare = await startTestApp();
    try {
      for (const path of ['/api/auth/authjs/csrf', '/api/auth/authjs/exchange']) {
        const response = await bare.request(path, { method: path.endsWith('exchange') ? 'POST' : 'GET' });
        expect(response.status).toBe(404);
        expect((await response.json()).error.code).toBe('PROVIDER_NOT_CONFIGURED');
      }
    } finally {
      await bare.close();
    }
  });
});
