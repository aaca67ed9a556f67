/**
 * The magic-link module (CONTRACT B.5) on generated apps, alone and together with jwt: each app is
 * generated, installed, built and migrated for real, then started as its own process and exercised
 * over HTTP, with a real SMTP server catching the mails. The jwt case runs on the app that
 * totp.test.ts checks and exercises too (jwt + magic-link + totp): its users here have two-factor
 * off, so a link signs them in at once.
 */
import { request as httpRequest } from 'node:http';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_APP_URL as APP_URL, expectCleanLogs, expectRateLimit, freshSqliteDatabase, useRunningApp } from '../helpers/running-app.js';
import { call, startAppProcess } from '../helpers/app-process.js';
import { type PreparedFixture, sharedFixture } from '../helpers/fixtures.js';
import { register as registerAccount } from '../helpers/accounts.js';
import { linkFrom, type Mail } from '../helpers/mail-catcher.js';
import { sqliteFixtureWithChecks } from './project-checks.js';

const LINK_PREFIX = `${APP_URL}/magic-link?token=`;
const PASSWORD = 'correct horse battery staple';

let counter = 0;
const uniqueEmail = () => `link${Date.now()}x${++counter}@example.com`;

/** A fresh SQLite file in the fixture folder, migrated with the app's own `db:migrate`. */
const fileOf = (url: string) => url.slice('file:'.length);

/** Prisma's SQLite adapter stores DateTime as ISO 8601 text ("…+00:00") by default, or as epoch ms. */
const millis = (value: string | number) => (typeof value === 'number' ? value : Date.parse(value));
const sameFormat = (sample: string | number, ms: number) => (typeof sample === 'number' ? ms : new Date(ms).toISOString().replace('Z', '+00:00'));

/** POST with any Host header (fetch does not let a caller choose Host). */
function postWithHost(url: string, pathname: string, host: string, body: object, headers: Record<string, string> = {}): Promise<number> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, path: pathname, method: 'POST', headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

interface MagicLinkSetup {
  fixture: () => PreparedFixture;
  withJwt: boolean;
  /** The app has the totp module too (its /2fa/ routes). */
  withTotp: boolean;
}

function describeMagicLinkApp(setup: MagicLinkSetup): void {
  const running = useRunningApp({ fixture: setup.fixture, databaseUrl: () => freshSqliteDatabase(setup.fixture(), 'magic-link') });

  async function send(url: string, email: string) {
    return call(url, '/api/auth/magic-link/send', { json: { email } });
  }

  /** Asks for a link and returns the mail and the token in it. */
  async function requestLink(email: string, url = running.app.url): Promise<{ mail: Mail; token: string; link: string }> {
    const since = running.mail.messages.length;
    const response = await send(url, email);
    expect(response).toMatchObject({ status: 202, body: { ok: true } });
    const received = await running.mail.waitForMail(email.trim().toLowerCase(), { since });
    const link = linkFrom(received, LINK_PREFIX);
    return { mail: received, link, token: new URL(link).searchParams.get('token')! };
  }

  const verify = (token: string, url = running.app.url) => call(url, '/api/auth/magic-link/verify', { json: { token } });

  it('documents exactly its routes in OpenAPI, and serves each of them', async () => {
    const { body } = await call(running.app.url, '/api/openapi.json');
    const routes = Object.entries(body.paths as Record<string, object>).flatMap(([route, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${route}`));
    expect(routes).toContain('POST /api/auth/magic-link/send');
    expect(routes).toContain('POST /api/auth/magic-link/verify');
    expect(routes).toContain('GET /api/auth/magic-link/verify');
    expect(routes.includes('POST /api/auth/login')).toBe(setup.withJwt);
    expect(routes.some((route) => route.includes('/2fa/'))).toBe(setup.withTotp);
    for (const route of routes) {
      const [method, pathname] = route.split(' ') as [string, string];
      const probe = await call(running.app.url, pathname, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
      expect(probe.status, route).not.toBe(404);
    }
    const providers = await call(running.app.url, '/api/auth/providers');
    expect(providers.body.methods).toEqual(setup.withJwt ? ['password', 'magic_link'] : ['magic_link']);
  });

  it('POST /send mails {APP_URL}/magic-link?token=… on its own line; POST /verify signs up with the email verified', async () => {
    const email = uniqueEmail();
    const { mail: received, token } = await requestLink(`  ${email.toUpperCase()} `);
    expect(received.to).toEqual([email]);
    expect(received.from).toContain('test@gatekit.local');
    // At least 128 random bits: base64url of 256 bits is 43 characters.
    expect(token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const signedIn = await verify(token);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual({
      token: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
      refreshToken: expect.any(String),
      refreshExpiresIn: expect.any(Number),
      user: { id: expect.any(String), email, name: null, image: null, emailVerified: true, twoFactorEnabled: false, createdAt: expect.any(String) },
    });
    const me = await call(running.app.url, '/api/auth/me', { token: signedIn.body.token });
    expect(me.body.user.id).toBe(signedIn.body.user.id);
    // A second link signs the same account in.
    const again = await verify((await requestLink(email)).token);
    expect(again.body.user.id).toBe(signedIn.body.user.id);
  });

  it('stores only a hash of the token, with the configured expiry', async () => {
    const { token } = await requestLink(uniqueEmail());
    const db = new Database(fileOf(running.databaseUrl), { readonly: true });
    try {
      const rows = db.prepare("SELECT * FROM OneTimeToken WHERE purpose = 'magic_link' ORDER BY createdAt").all() as { tokenHash: string; expiresAt: string; createdAt: string }[];
      expect(JSON.stringify(rows)).not.toContain(token);
      const newest = rows.at(-1)!;
      expect(newest.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(Math.abs(millis(newest.expiresAt) - millis(newest.createdAt) - 15 * 60_000)).toBeLessThan(5000);
    } finally {
      db.close();
    }
  });

  // Until 4.0 the GET was the verify route: a mail scanner that opened a link pointing at the API
  // used the token up (or signed itself in with it).
  it('GET /verify answers 405 METHOD_NOT_ALLOWED with Allow: POST, and the token still works', async () => {
    const { token } = await requestLink(uniqueEmail());
    for (const method of ['GET', 'HEAD']) {
      const fetched = await call(running.app.url, `/api/auth/magic-link/verify?token=${encodeURIComponent(token)}`, { method });
      expect(fetched.status, method).toBe(405);
      expect(fetched.headers.get('allow'), method).toBe('POST');
      if (method === 'GET') expect(fetched.body).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: expect.any(String) } });
    }
    expect((await verify(token)).status).toBe(200);
  });

  it('an expired link answers 401 INVALID_TOKEN (MAGIC_LINK_EXPIRY_MINUTES=1)', async () => {
    const short = await startAppProcess(setup.fixture().dir, running.env({ MAGIC_LINK_EXPIRY_MINUTES: '1' }));
    try {
      const { mail: received, token } = await requestLink(uniqueEmail(), short.url);
      expect(received.text).toContain('within 1 minute');
      const db = new Database(fileOf(running.databaseUrl));
      try {
        const row = db.prepare("SELECT id, expiresAt, createdAt FROM OneTimeToken WHERE purpose = 'magic_link' ORDER BY createdAt DESC LIMIT 1").get() as { id: string; expiresAt: string; createdAt: string };
        expect(Math.abs(millis(row.expiresAt) - millis(row.createdAt) - 60_000)).toBeLessThan(5000);
        // Let the minute pass without waiting for it.
        db.prepare('UPDATE OneTimeToken SET expiresAt = ? WHERE id = ?').run(sameFormat(row.expiresAt, Date.now() - 1000), row.id);
      } finally {
        db.close();
      }
      expect(await verify(token, short.url)).toMatchObject({ status: 401, body: { error: { code: 'INVALID_TOKEN' } } });
    } finally {
      await short.stop();
    }
  });

  it('builds the link from APP_URL whatever Host and X-Forwarded-Host say', async () => {
    const email = uniqueEmail();
    const since = running.mail.messages.length;
    const status = await postWithHost(running.app.url, '/api/auth/magic-link/send', 'evil.example', { email }, {
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      forwarded: 'host=evil.example;proto=https',
    });
    expect(status).toBe(202);
    const received = await running.mail.waitForMail(email, { since });
    expect(received.text).not.toContain('evil.example');
    expect(received.html).not.toContain('evil.example');
    expect(linkFrom(received, LINK_PREFIX).startsWith(LINK_PREFIX)).toBe(true);
  });

  it('refuses address lists, quoted local parts and CR/LF with 400, and mails nobody', async () => {
    const since = running.mail.messages.length;
    const victim = uniqueEmail();
    for (const email of [
      `${victim},attacker@example.com`,
      `${victim};attacker@example.com`,
      `${victim} attacker@example.com`,
      `${victim}\r\nBcc: attacker@example.com`,
      `${victim}\nattacker@example.com`,
      '"attacker@example.com,x"@example.com',
      '"quoted"@example.com',
      `Victim <${victim}>`,
      'no-at-sign',
    ]) {
      const response = await send(running.app.url, email);
      expect(response.status, JSON.stringify(email)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    for (const body of [{}, { email: 42 }, { email: [victim, 'attacker@example.com'] }]) {
      expect((await call(running.app.url, '/api/auth/magic-link/send', { json: body })).status).toBe(400);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(running.mail.messages.slice(since)).toEqual([]);
  });

  if (setup.withJwt) {
    it('a user with a verified address and a password signs in by link into the same account; the password keeps working', async () => {
      const account = await registerAccount(running, { password: PASSWORD, verified: true });
      const signedIn = await verify((await requestLink(account.email)).token);
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.user).toMatchObject({ id: account.userId, emailVerified: true });
      const login = await call(running.app.url, '/api/auth/login', { json: { email: account.email, password: PASSWORD } });
      expect(login.status).toBe(200);
      expect(login.body.user.id).toBe(account.userId);
      expect((await call(running.app.url, '/api/auth/me', { token: account.token })).status).toBe(200);
    });

    // Before issue 7 the link signed the owner into the squatter's account and the squatter's
    // password and token kept working (the pre-hijack).
    it('a link to an address someone registered without proving it takes the account over: password and tokens set before stop working', async () => {
      const squatter = await registerAccount(running, { password: PASSWORD });
      const signedIn = await verify((await requestLink(squatter.email)).token);
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.user).toMatchObject({ id: squatter.userId, emailVerified: true });
      expect((await call(running.app.url, '/api/auth/login', { json: { email: squatter.email, password: PASSWORD } })).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/me', { token: squatter.token })).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/me', { token: signedIn.body.token })).status).toBe(200);
    });

    it('a user who signed up by link can later set a password through forgot/reset', async () => {
      const email = uniqueEmail();
      await verify((await requestLink(email)).token);
      const since = running.mail.messages.length;
      expect((await call(running.app.url, '/api/auth/password/forgot', { json: { email } })).status).toBe(202);
      const reset = linkFrom(await running.mail.waitForMail(email, { since }), `${APP_URL}/reset-password?token=`);
      const response = await call(running.app.url, '/api/auth/password/reset', { json: { token: new URL(reset).searchParams.get('token'), password: PASSWORD } });
      expect(response.status).toBe(200);
      expect((await call(running.app.url, '/api/auth/login', { json: { email, password: PASSWORD } })).status).toBe(200);
    });
  }

  it('logs never contain the link token', async () => {
    const { token } = await requestLink(uniqueEmail());
    await verify(token);
    expectCleanLogs(running.app.output(), [token]);
  });

  it('rate limits magic-link send per IP with 429 RATE_LIMITED and Retry-After', async () => {
    await expectRateLimit(running, setup.fixture(), { max: 3, allowedStatus: 202, request: (url) => send(url, uniqueEmail()) });
  });

  it('rate limits magic-link verify per IP with 429 RATE_LIMITED and Retry-After', async () => {
    await expectRateLimit(running, setup.fixture(), { max: 3, allowedStatus: 401, request: (url) => verify('A'.repeat(43), url) });
  });
}

describe('magic-link fixture', () => {
  const fixture = sqliteFixtureWithChecks('magic-link');

  describe('the running server (B.5)', () => {
    describeMagicLinkApp({ fixture, withJwt: false, withTotp: false });
  });
});

// Generated and checked once for both files: whichever of them asks first prepares it.
describe('jwt-magic-link-totp fixture (project checks in totp.test.ts)', () => {
  let fixture: PreparedFixture;
  beforeAll(async () => {
    fixture = await sharedFixture('jwt-magic-link-totp');
  });

  describe('the running server (B.5)', () => {
    describeMagicLinkApp({ fixture: () => fixture, withJwt: true, withTotp: true });
  });
});
