import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_APP_URL as APP_URL, expectCleanLogs, expectRateLimit, TEST_JWT_SECRET, useRunningApp } from '../helpers/running-app.js';
import { call, runAppUntilExit, startAppProcess } from '../helpers/app-process.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import { redisCommand, REDIS_HOST, REDIS_PORT } from '../helpers/redis.js';

export const JWT_SECRET = TEST_JWT_SECRET;
const PASSWORD = 'correct horse battery staple';

let counter = 0;
const uniqueEmail = () => `user${Date.now()}x${++counter}@example.com`;

export interface ScenarioSetup {
  fixture: () => PreparedFixture;
  databaseUrl: () => string;
  /** A Redis database index of its own, so fixtures running in parallel do not share counters. */
  redisDb: number;
}

/**
 * Every route of CONTRACT B.3 and B.4 exercised over HTTP against the generated server running
 * as its own process, with a real SMTP server catching mail, plus the attack cases.
 */
export function describeJwtApp(setup: ScenarioSetup): void {
  const running = useRunningApp({ fixture: setup.fixture, databaseUrl: setup.databaseUrl });

  async function register(email = uniqueEmail(), password = PASSWORD) {
    const response = await call(running.app.url, '/api/auth/register', { json: { email, password, name: 'Ada' } });
    return { ...response, email };
  }

  describe('always present (B.3)', () => {
    it('GET /api/openapi.json documents exactly the routes the app serves', async () => {
      const { body } = await call(running.app.url, '/api/openapi.json');
      expect(body.openapi).toBe('3.1.0');
      const routes = Object.entries(body.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
      expect(routes.sort()).toEqual(
        [
          'GET /healthz', 'GET /readyz', 'GET /api/auth/me', 'POST /api/auth/logout', 'POST /api/auth/logout-all', 'GET /api/auth/providers', 'GET /api/openapi.json',
          'POST /api/auth/refresh', 'GET /api/auth/sessions', 'DELETE /api/auth/account', 'GET /api/auth/account/export', 'DELETE /api/auth/sessions/{id}', 'POST /api/auth/sessions/revoke-others',
          'POST /api/auth/register', 'POST /api/auth/login', 'POST /api/auth/password/change', 'POST /api/auth/password/forgot', 'POST /api/auth/password/reset', 'POST /api/auth/email/verify/send', 'POST /api/auth/email/verify',
        ].sort(),
      );
      for (const route of routes) {
        const [method, path] = route.split(' ') as [string, string];
        const probe = await call(running.app.url, path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
        expect(probe.status, route).not.toBe(404);
      }
    });

    it('GET /api/auth/providers', async () => {
      expect((await call(running.app.url, '/api/auth/providers')).body).toEqual({ methods: ['password'], oauth: [], hosted: [] });
    });
  });

  describe('email and password (B.4)', () => {
    it('register → 201 token response with a refresh token, whose JWT has sub, sid, jti, iat, auth_time, exp = iat + 15m', async () => {
      const { status, body, email } = await register();
      expect(status).toBe(201);
      expect(body).toEqual({
        token: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 900,
        refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
        refreshExpiresIn: expect.any(Number),
        user: { id: expect.any(String), email, name: 'Ada', image: null, emailVerified: false, twoFactorEnabled: false, createdAt: expect.stringMatching(/Z$/) },
      });
      const [header, payload] = body.token.split('.').slice(0, 2).map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
      expect(header.alg).toBe('HS256');
      expect(Object.keys(payload).sort()).toEqual(['auth_time', 'exp', 'iat', 'jti', 'sid', 'sub']);
      // SESSION_IDLE_DAYS (30) from now, give or take the second the answer took.
      expect(body.refreshExpiresIn).toBeGreaterThan(30 * 86_400 - 5);
      expect(body.refreshExpiresIn).toBeLessThanOrEqual(30 * 86_400);
      expect(payload.exp - payload.iat).toBe(900);
      expect(payload.sub).toBe(body.user.id);
      const me = await call(running.app.url, '/api/auth/me', { token: body.token });
      expect(me.body).toEqual({ user: body.user });
    });

    it('409 EMAIL_TAKEN, case-insensitively; 400 with details for bad input', async () => {
      const { email } = await register();
      const again = await register(email.toUpperCase());
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('EMAIL_TAKEN');
      const bad = await call(running.app.url, '/api/auth/register', { json: { email: 'not-an-email', password: 'short' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
      expect(bad.body.error.details.map((detail: { path: string }) => detail.path).sort()).toEqual(['email', 'password']);
    });

    it('login: 200, and the same 401 body for an unknown email and a wrong password', async () => {
      const { email } = await register();
      const ok = await call(running.app.url, '/api/auth/login', { json: { email: ` ${email.toUpperCase()} `, password: PASSWORD } });
      expect(ok.status).toBe(200);
      expect(ok.body.tokenType).toBe('Bearer');
      const wrong = await call(running.app.url, '/api/auth/login', { json: { email, password: 'wrong password here' } });
      const unknown = await call(running.app.url, '/api/auth/login', { json: { email: uniqueEmail(), password: PASSWORD } });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    });

    it('password change returns a new token and revokes the earlier ones', async () => {
      const { body, email } = await register();
      const second = await call(running.app.url, '/api/auth/login', { json: { email, password: PASSWORD } });
      const changed = await call(running.app.url, '/api/auth/password/change', { token: body.token, json: { currentPassword: PASSWORD, newPassword: 'new secret phrase 42' } });
      expect(changed.status).toBe(200);
      expect((await call(running.app.url, '/api/auth/me', { token: body.token })).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/me', { token: second.body.token })).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/me', { token: changed.body.token })).status).toBe(200);
      const wrongCurrent = await call(running.app.url, '/api/auth/password/change', { token: changed.body.token, json: { currentPassword: PASSWORD, newPassword: 'another phrase 43' } });
      expect(wrongCurrent.status).toBe(401);
    });

    it('forgot → real mail with the link on its own line → reset; the link works once', async () => {
      const { body, email } = await register();
      const since = running.mail.messages.length;
      const forgot = await call(running.app.url, '/api/auth/password/forgot', {
        json: { email },
        headers: { host: 'evil.test', 'x-forwarded-host': 'evil.test' },
      });
      expect(forgot).toMatchObject({ status: 202, body: { ok: true } });
      const message = await running.mail.waitForMail(email, { since, subject: /password/i });
      const link = linkFrom(message, `${APP_URL}/reset-password?token=`);
      expect(message.text).not.toContain('evil.test');
      const token = new URL(link).searchParams.get('token')!;
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      const reset = await call(running.app.url, '/api/auth/password/reset', { json: { token, password: 'fresh passphrase 77' } });
      expect(reset.status).toBe(200);
      expect(reset.body.user.emailVerified).toBe(true);
      expect((await call(running.app.url, '/api/auth/me', { token: body.token })).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/login', { json: { email, password: 'fresh passphrase 77' } })).status).toBe(200);
      const replay = await call(running.app.url, '/api/auth/password/reset', { json: { token, password: 'yet another phrase' } });
      expect(replay.status).toBe(401);
      expect(replay.body.error.code).toBe('INVALID_TOKEN');
    });

    it('email verification by mailed link, by the signed-in owner only', async () => {
      const { body, email } = await register();
      const since = running.mail.messages.length;
      expect((await call(running.app.url, '/api/auth/email/verify/send', { method: 'POST', token: body.token })).status).toBe(202);
      const link = linkFrom(await running.mail.waitForMail(email, { since, subject: /confirm/i }), `${APP_URL}/verify-email?token=`);
      const token = new URL(link).searchParams.get('token');
      const anonymous = await call(running.app.url, '/api/auth/email/verify', { json: { token } });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
      const verified = await call(running.app.url, '/api/auth/email/verify', { token: body.token, json: { token } });
      expect(verified.status).toBe(200);
      expect(verified.body.user).toMatchObject({ email, emailVerified: true });
      const unknown = await call(running.app.url, '/api/auth/email/verify', { token: body.token, json: { token: 'x'.repeat(43) } });
      expect(unknown.body.error.code).toBe('INVALID_TOKEN');
    });

    it('concurrent registrations of one email: exactly one 201, the rest 409, never 500', async () => {
      const email = uniqueEmail();
      const results = await Promise.all(Array.from({ length: 8 }, () => register(email)));
      expect(results.filter((result) => result.status === 201)).toHaveLength(1);
      expect(results.filter((result) => result.status === 409)).toHaveLength(7);
    });
  });

  describe('the guard and tokens (B.2)', () => {
    const sign = (claims: Record<string, unknown>, secret = JWT_SECRET) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));

    it('rejects alg none, another algorithm, a tampered payload, another secret, an expired token and a session that was never started', async () => {
      const { body } = await register();
      const [header, payload, signature] = body.token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const attacks = {
        none: `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`,
        noneNoSignature: `${encode({ alg: 'none' })}.${payload}`,
        tampered: `${header}.${encode({ ...claims, exp: claims.exp + 1000 })}.${signature}`,
        otherSecret: await sign(claims, 'another-secret-another-secret-another-secret'),
        expired: await sign({ ...claims, iat: now - 100, exp: now - 10 }),
        // Access tokens are checked against their session (sid), not a record per token.
        unissued: await sign({ ...claims, sid: 'made-up' }),
        // The same claims and secret under another HMAC: only HS256 is accepted.
        hs512: await new SignJWT(claims).setProtectedHeader({ alg: 'HS512', typ: 'JWT' }).sign(new TextEncoder().encode(JWT_SECRET)),
      };
      for (const [name, token] of Object.entries(attacks)) {
        const response = await call(running.app.url, '/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
        expect(response.status, name).toBe(401);
        expect(response.body.error.code, name).toBe('UNAUTHENTICATED');
      }
      expect((await call(running.app.url, '/api/auth/me', { headers: { authorization: `bearer ${body.token}` } })).status).toBe(200);
      expect((await call(running.app.url, `/api/auth/me?access_token=${body.token}`)).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/me', { headers: { cookie: `token=${body.token}` } })).status).toBe(401);
    });

    it('refresh rotates: eight concurrent refreshes of one token (on PostgreSQL split across two instances) give exactly one 200, and the new token goes on', async () => {
      // SQLite is for one instance (docs/production.md): there the eight go to one process.
      const twoInstances = !running.databaseUrl.startsWith('file:');
      const second = twoInstances ? await startAppProcess(setup.fixture().dir, running.env()) : running.app;
      try {
        for (let round = 0; round < 3; round++) {
          const { body } = await register();
          const instances = [running.app.url, second.url];
          const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => call(instances[i % 2]!, '/api/auth/refresh', { json: { refreshToken: body.refreshToken } })));
          expect(replies.map((reply) => reply.status).sort()).toEqual([200, ...Array(7).fill(401)]);
          for (const reply of replies.filter((one) => one.status === 401)) expect(reply.body.error.code).toBe('INVALID_TOKEN');
          const winner = replies.find((reply) => reply.status === 200)!.body;
          expect(winner).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshToken: expect.any(String) });
          // The losers came within the grace: they ended nothing, on either instance.
          expect((await call(second.url, '/api/auth/me', { token: winner.token })).status).toBe(200);
          expect((await call(running.app.url, '/api/auth/refresh', { json: { refreshToken: winner.refreshToken } })).status).toBe(200);
        }
      } finally {
        if (second !== running.app) await second.stop();
      }
    });

    it('cookie transport over HTTP: the refresh token only in an HttpOnly SameSite=Strict cookie; a form POST or a request without the header refreshes nothing', async () => {
      const transport = { 'refresh-token-transport': 'cookie' };
      const cookieOf = (reply: { headers: Headers }) => {
        const header = reply.headers.getSetCookie().find((one) => one.startsWith('gatekit_refresh='))!;
        expect(header).toMatch(/; HttpOnly/i);
        expect(header).toMatch(/; SameSite=Strict/i);
        expect(header).toMatch(/; Path=\/api\/auth(;|$)/i);
        return header.split(';')[0]!;
      };
      const email = uniqueEmail();
      expect((await register(email)).status).toBe(201);
      const login = await call(running.app.url, '/api/auth/login', { json: { email, password: PASSWORD }, headers: transport });
      expect(login.status).toBe(200);
      expect(login.body.refreshToken).toBeUndefined();
      expect(login.body.refreshExpiresIn).toBeGreaterThan(0);
      const cookie = cookieOf(login);

      // What a cross-site form could send if the browser attached the cookie: no custom header,
      // a form or text body. None of them uses the token up.
      const forms = [
        { 'content-type': 'application/x-www-form-urlencoded', body: 'refreshToken=' },
        { 'content-type': 'text/plain', body: '' },
        { 'content-type': 'multipart/form-data; boundary=x', body: '--x--\r\n' },
      ];
      for (const { body, ...headers } of forms) {
        const forged = await call(running.app.url, '/api/auth/refresh', { headers: { ...headers, cookie }, body });
        expect(forged.status, headers['content-type']).toBeGreaterThanOrEqual(400);
        expect(forged.headers.getSetCookie(), headers['content-type']).toEqual([]);
      }
      const noHeader = await call(running.app.url, '/api/auth/refresh', { json: {}, headers: { cookie } });
      expect(noHeader.status).toBe(401);
      expect(noHeader.body.error.code).toBe('INVALID_TOKEN');

      // The owner's refresh, with the header, still works: nothing above used the cookie up.
      const refreshed = await call(running.app.url, '/api/auth/refresh', { method: 'POST', headers: { ...transport, cookie } });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.refreshToken).toBeUndefined();
      expect((await call(running.app.url, '/api/auth/me', { token: refreshed.body.token })).status).toBe(200);
      const next = cookieOf(refreshed);
      expect(next).not.toBe(cookie);
      expect((await call(running.app.url, '/api/auth/refresh', { method: 'POST', headers: { ...transport, cookie } })).status).toBe(401);

      // Logout clears it.
      const logout = await call(running.app.url, '/api/auth/logout', { method: 'POST', token: refreshed.body.token, headers: { cookie: next } });
      expect(logout.status).toBe(204);
      expect(logout.headers.getSetCookie().find((one) => one.startsWith('gatekit_refresh='))).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect((await call(running.app.url, '/api/auth/refresh', { method: 'POST', headers: { ...transport, cookie: next } })).status).toBe(401);
    });

    it('limits refused refreshes per client IP like the other sign-in routes', async () => {
      await expectRateLimit(running, setup.fixture(), {
        max: 3,
        allowedStatus: 401,
        request: (url) => call(url, '/api/auth/refresh', { json: { refreshToken: 'not-a-token-this-server-issued' } }),
      });
    });

    it("with REDIS_URL, two instances share one session's refresh budget", async () => {
      expect(await redisCommand(setup.redisDb, 'FLUSHDB')).toBe('+OK');
      const shared = { ...running.env(), RATE_LIMIT_MAX: '3', REDIS_URL: `redis://${REDIS_HOST}:${REDIS_PORT}/${setup.redisDb}` };
      const first = await startAppProcess(setup.fixture().dir, shared);
      const second = await startAppProcess(setup.fixture().dir, shared);
      try {
        const { body } = await register();
        const statuses = [];
        // A live session's refreshes count toward its own budget, on whichever instance.
        let refreshToken = body.refreshToken;
        for (const instance of [first, second, first, second]) {
          const reply = await call(instance.url, '/api/auth/refresh', { json: { refreshToken } });
          statuses.push(reply.status);
          if (reply.status === 200) refreshToken = reply.body.refreshToken;
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect(Number((await call(first.url, '/api/auth/refresh', { json: { refreshToken } })).headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await first.stop();
        await second.stop();
      }
    });

    it('reset tokens are not access tokens', async () => {
      const { email } = await register();
      const since = running.mail.messages.length;
      await call(running.app.url, '/api/auth/password/forgot', { json: { email } });
      const token = new URL(linkFrom(await running.mail.waitForMail(email, { since }), `${APP_URL}/reset-password?token=`)).searchParams.get('token');
      expect((await call(running.app.url, '/api/auth/me', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    });
  });

  describe('hostile input (B.1, B.11)', () => {
    it('malformed JSON → 400 INVALID_JSON; wrong type → 415; over 100 kB → 413; the process survives', async () => {
      const malformed = await call(running.app.url, '/api/auth/login', { headers: { 'content-type': 'application/json' }, body: '{"email": ' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('INVALID_JSON');
      const form = await call(running.app.url, '/api/auth/login', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a@b.c&password=x' });
      expect(form.status).toBe(415);
      expect(form.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      const huge = await call(running.app.url, '/api/auth/register', { json: { email: uniqueEmail(), password: PASSWORD, name: 'x'.repeat(200 * 1024) } });
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      const array = await call(running.app.url, '/api/auth/login', { json: [1, 2, 3] });
      expect(array.status).toBe(400);
      const primitive = await call(running.app.url, '/api/auth/login', { headers: { 'content-type': 'application/json' }, body: '"just a string"' });
      expect(primitive.status).toBe(400);
      expect((await call(running.app.url, '/healthz')).status).toBe(200);
    });

    it('hostile strings are stored verbatim, NUL characters and bidirectional overrides refused, never a 500', async () => {
      const names = ["Robert'); DROP TABLE \"User\";--", '<script>alert(1)</script>', '名前 🚀 Ünïcødé'];
      for (const name of names) {
        const response = await call(running.app.url, '/api/auth/register', { json: { email: uniqueEmail(), password: PASSWORD, name } });
        expect(response.status, JSON.stringify(name)).toBe(201);
        expect(response.body.user.name).toBe(name);
        const me = await call(running.app.url, '/api/auth/me', { token: response.body.token });
        expect(me.body.user.name).toBe(name);
      }
      const nul = await call(running.app.url, '/api/auth/register', { json: { email: uniqueEmail(), password: PASSWORD, name: 'a\u0000b' } });
      expect(nul.status).toBe(400);
      expect(nul.body.error.details).toEqual([{ path: 'name', message: expect.stringContaining('NUL') }]);
      // A name is one line of plain text (B.4): a bidirectional override would make it read differently in a mail.
      const override = await call(running.app.url, '/api/auth/register', { json: { email: uniqueEmail(), password: PASSWORD, name: '\u202eevil' } });
      expect(override.status).toBe(400);
      expect(override.body.error.details).toEqual([{ path: 'name', message: expect.stringContaining('bidirectional') }]);
      for (const email of ["x@example.com' OR 1=1--", 'a@b.c\r\nBcc: victim@example.com', { $ne: null }, ['a@b.c'], `${'a'.repeat(300)}@example.com`]) {
        const response = await call(running.app.url, '/api/auth/login', { json: { email, password: PASSWORD } });
        expect(response.status, JSON.stringify(email)).toBe(400);
      }
    });

    it('errors never leak stacks, SQL or Prisma codes', async () => {
      const responses = await Promise.all([
        call(running.app.url, '/api/auth/login', { headers: { 'content-type': 'application/json' }, body: '{' }),
        call(running.app.url, '/api/auth/register', { json: { email: 'bad' } }),
        call(running.app.url, '/api/auth/email/verify', { json: { token: "' OR 1=1 --" } }),
      ]);
      for (const response of responses) {
        expect(JSON.stringify(response.body)).not.toMatch(/at \w+ \(|prisma|P20\d\d|SELECT|node_modules|\.ts:/i);
      }
    });

    it('logs are JSON lines without passwords, tokens or Authorization headers', async () => {
      const secret = `log-probe-${Date.now()} passphrase`;
      const { body } = await register(uniqueEmail(), secret);
      await call(running.app.url, '/api/auth/me', { token: body.token });
      await call(running.app.url, `/api/auth/email/verify?token=${body.token}`, { json: { token: body.token } });
      expectCleanLogs(running.app.output(), [secret, body.token]);
    });
  });

  describe('protection (B.11) and start-up (B.2)', () => {
    it('rate limits login per IP with 429 RATE_LIMITED and Retry-After', async () => {
      await expectRateLimit(running, setup.fixture(), {
        max: 3,
        allowedStatus: 401,
        request: (url) => call(url, '/api/auth/login', { json: { email: uniqueEmail(), password: PASSWORD } }),
        after: async (url) => {
          // Without TRUST_PROXY a forged X-Forwarded-For is not a new client.
          const spoofed = await call(url, '/api/auth/login', { json: { email: uniqueEmail(), password: PASSWORD }, headers: { 'x-forwarded-for': '203.0.113.9' } });
          expect(spoofed.status).toBe(429);
        },
      });
    });

    it('with REDIS_URL, instances share one counter', async () => {
      expect(await redisCommand(setup.redisDb, 'FLUSHDB')).toBe('+OK');
      const shared = { ...running.env(), RATE_LIMIT_MAX: '3', REDIS_URL: `redis://${REDIS_HOST}:${REDIS_PORT}/${setup.redisDb}` };
      const first = await startAppProcess(setup.fixture().dir, shared);
      const second = await startAppProcess(setup.fixture().dir, shared);
      try {
        const statuses = [];
        for (const instance of [first, second, first, second]) {
          statuses.push((await call(instance.url, '/api/auth/password/forgot', { json: { email: uniqueEmail() } })).status);
        }
        expect(statuses).toEqual([202, 202, 202, 429]);
      } finally {
        await first.stop();
        await second.stop();
      }
    });

    it('production refuses a missing, short or placeholder JWT_SECRET: exit 1, a clear message, no port', async () => {
      for (const secret of [undefined, 'too-short', 'replace-with-a-random-secret-of-at-least-32-characters']) {
        const result = await runAppUntilExit(setup.fixture().dir, { ...running.env(), NODE_ENV: 'production', BCRYPT_COST: '12', JWT_SECRET: secret ?? '' });
        expect(result.code, String(secret)).toBe(1);
        expect(result.output).toContain('JWT_SECRET');
        expect(result.output).not.toContain('server listening');
        await expect(fetch(`http://127.0.0.1:${result.port}/healthz`)).rejects.toThrow();
      }
    });

    it('production refuses a bcrypt cost below 12', async () => {
      const result = await runAppUntilExit(setup.fixture().dir, { ...running.env(), NODE_ENV: 'production', BCRYPT_COST: '4' });
      expect(result.code).toBe(1);
      expect(result.output).toContain('BCRYPT_COST');
    });

    it('stops cleanly on SIGTERM', async () => {
      const extra = await startAppProcess(setup.fixture().dir, running.env());
      expect(await extra.stop()).toBe(0);
    });
  });
}
