/**
 * The base app's share of the second attack pass (issue 22), replayed against the full fixture
 * (SQLite) running as its own process. Each describe is one finding; each test performs the attack
 * and asserts that it fails as CONTRACT B.1 and B.11 say. The comment above each test says how it
 * failed before the fix. The PostgreSQL side of the NUL finding is in path-params-postgresql.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail } from '../helpers/accounts.js';
import { call, runAppUntilExit, startAppProcess } from '../helpers/app-process.js';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-oauth/index.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { signIn } from '../helpers/oauth-browser.js';
import { expectErrorShape, nulPathProbes, type PathProbe } from '../helpers/path-probes.js';
import { TEST_APP_URL as FRONT_END, useRunningApp } from '../helpers/running-app.js';
import { openSqlite, sqliteDate } from '../helpers/sqlite-file.js';

const PASSWORD = 'correct horse battery staple';

let fixture: PreparedFixture;
let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders();
  fixture = await sharedFixture('full');
});
afterAll(async () => {
  await fake?.close();
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'security-base'), env: () => fake.envAll() });

const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);

/** A GET sent with the path exactly as written: fetch would resolve the dot segments first. */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('finding 5a (low): a NUL byte in a path parameter', () => {
  // Before: 404s here on SQLite, but a 500 with Prisma's stack in the log on PostgreSQL (see
  // path-params-postgresql.test.ts); now every database answers before any route reads the value.
  it('every route with a path parameter answers 404 in the error shape, and the value is not logged', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    const org = await api('/api/organizations', { token: account.token, json: { name: 'Nul Co' } });
    expect(org.status).toBe(201);
    const probes: PathProbe[] = await nulPathProbes(running.app.url, { orgId: org.body.organization.id });
    expect(probes.length).toBeGreaterThanOrEqual(10);
    for (const probe of probes) {
      const reply = await api(probe.path, { method: probe.method, token: account.token, ...(probe.method === 'GET' || probe.method === 'DELETE' ? {} : { json: {} }) });
      expect(reply.status, `${probe.method} ${probe.path}`).toBe(404);
      expectErrorShape(reply.body, `${probe.method} ${probe.path}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const output = running.app.output();
    expect(output).not.toContain('nul-probe');
    expect(output).not.toContain('"unhandled error"');
  });
});

describe("finding 5b (low): a path that names a folder under the pages' static files", () => {
  // Before: 500 INTERNAL_ERROR ("EISDIR, read") for each, and an error line in the log.
  it('/assets/., /assets/%2e%2e, /assets/x/.. and the like answer 404 in the error shape', async () => {
    for (const path of ['/assets/.', '/assets/%2e%2e', '/assets/x/..', '/assets/%2e', '/assets/x/%2e%2e', '/assets/..%2f', '/assets/%2e%2e/%2e%2e']) {
      const reply = await rawGet(running.app.url, path);
      expect(reply.status, path).toBe(404);
      expectErrorShape(JSON.parse(reply.body), path);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running.app.output()).not.toContain('EISDIR');
    // The files themselves are still served.
    const page = await rawGet(running.app.url, '/');
    expect(page.status).toBe(200);
  });
});

describe('finding 7 (low): TRUST_PROXY values that trust every client', () => {
  // Before: 99 and the two halves of the Internet started the app (any client picked its own
  // address); 0.0.0.0/0 crashed on the first request's address check with a stack trace.
  it.each(['99', '6', '0.0.0.0/1,128.0.0.0/1', '0.0.0.0/0', '::/0', '10.0.0.0/8, 0.0.0.0/0', '::ffff:0.0.0.0/96', 'true'])(
    'refuses TRUST_PROXY=%s at start-up: exit 1, a message saying what to set, no stack trace',
    async (value) => {
      const result = await runAppUntilExit(fixture.dir, running.env({ TRUST_PROXY: value }));
      expect(result.code).toBe(1);
      expect(result.output).toContain('TRUST_PROXY');
      expect(result.output).toMatch(/number of proxies in front of the app \(1 behind one load balancer, at most 5\)/);
      expect(result.output).not.toMatch(/\n\s+at /);
      expect(result.output).not.toContain('server listening');
    },
    60_000,
  );

  // These worked before and must keep working: the names Express knows, a narrow subnet, 5 hops.
  it.each(['loopback, linklocal, uniquelocal', '10.0.0.0/8, 192.168.0.0/16, fd00::/16', '5'])('still starts with TRUST_PROXY=%s', async (value) => {
    const proxied = await startAppProcess(fixture.dir, running.env({ TRUST_PROXY: value }));
    try {
      expect((await call(proxied.url, '/healthz', { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(200);
    } finally {
      await proxied.stop();
    }
  }, 60_000);
});

describe('finding 9b (low): the Kelvin sign folds into an ASCII k', () => {
  /** kate-…@example.com written with U+212A KELVIN SIGN instead of its first letter. */
  const kelvin = (email: string) => `\u212A${email.slice(1)}`;
  const refused = { error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: [{ path: 'email', message: expect.any(String) }] } };

  // Before: 409 EMAIL_TAKEN (the address was lowercased to kate's); 200 with a token for kate's
  // account at login; 202 with kate's reset and sign-in links mailed.
  it("register, login, forgot-password and magic-link send with \\u212Aate's address are refused, and never reach kate's account", async () => {
    const kate = await register(running, { email: uniqueEmail('kate'), password: PASSWORD, verified: true });
    const lookalike = kelvin(kate.email);
    expect(lookalike.toLowerCase()).toBe(kate.email);
    const since = running.mail.messages.length;

    const registered = await api('/api/auth/register', { json: { email: lookalike, password: 'another password entirely' } });
    expect(registered.status).toBe(400);
    expect(registered.body).toEqual(refused);
    const login = await api('/api/auth/login', { json: { email: lookalike, password: PASSWORD } });
    expect(login.status).toBe(400);
    expect(login.body).toEqual(refused);
    for (const path of ['/api/auth/password/forgot', '/api/auth/magic-link/send']) {
      const reply = await api(path, { json: { email: lookalike } });
      expect(reply.status, path).toBe(400);
      expect(reply.body, path).toEqual(refused);
    }
    // U+0130 (capital I with a dot) lowercases to "i" and a combining dot: refused as well.
    const dotted = await api('/api/auth/register', { json: { email: `\u0130${uniqueEmail('ines').slice(1)}`, password: PASSWORD } });
    expect(dotted.status).toBe(400);

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.mail.messages.slice(since).filter((mail) => mail.to.includes(kate.email))).toEqual([]);
    expect((await api('/api/auth/login', { json: { email: kate.email.toUpperCase(), password: PASSWORD } })).status).toBe(200);
  });

  // Before: 201, an invite row for kate's address, whose link kate could then accept.
  it("an invite to \\u212Aate's address is refused, so it can never be accepted as kate's", async () => {
    const owner = await register(running, { password: PASSWORD, verified: true });
    const kate = await register(running, { email: uniqueEmail('kate'), password: PASSWORD, verified: true });
    const org = await api('/api/organizations', { token: owner.token, json: { name: 'Kelvin Co' } });
    const invite = await api(`/api/organizations/${org.body.organization.id}/invite`, { token: owner.token, json: { email: kelvin(kate.email), role: 'admin' } });
    expect(invite.status).toBe(400);
    expect(invite.body).toEqual(refused);
  });

  // Before: GitHub's verified "\u212Aate…" was lowercased to kate's address, so the identity was
  // linked to kate's account and the sign-in landed in it.
  it("a provider's verified \\u212Aate address is no usable email: the sign-in is refused and nothing is linked to kate", async () => {
    const kate = await register(running, { email: uniqueEmail('kate'), password: PASSWORD, verified: true });
    fake.nextUser('github', { id: `${Date.now()}`, email: kelvin(kate.email), emailVerified: true, name: 'Not Kate' });
    const landing = await signIn({ appUrl: running.app.url, frontEndUrl: FRONT_END, provider: 'github' });
    expect(landing.code).toBeUndefined();
    expect(landing.error).toBe('email_required');
    const db = openSqlite(running.databaseUrl, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM Account WHERE userId = ?').get(kate.userId)).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});

describe('finding 6 (low, part): expired rows are never deleted', () => {
  // Before: nothing deleted them; only a user's own expired access tokens went at their next
  // sign-in, so a flood of OAuth starts or magic-link sends grew the tables without bound.
  it('at start-up, expired tokens, challenges, Auth.js sessions and links are deleted and live ones kept', async () => {
    const url = copyOfDevDatabase(fixture, 'expired-rows');
    const db = openSqlite(url);
    const past = sqliteDate(Date.now() - 60_000);
    const future = sqliteDate(Date.now() + 3_600_000);
    const now = sqliteDate(Date.now());
    const userId = `user-${randomUUID()}`;
    const authjsUserId = `authjs-${randomUUID()}`;
    db.prepare('INSERT INTO User (id, email, updatedAt) VALUES (?, ?, ?)').run(userId, uniqueEmail(), now);
    db.prepare('INSERT INTO AuthjsUser (id, email, createdAt) VALUES (?, ?, ?)').run(authjsUserId, uniqueEmail(), now);
    // Refresh tokens expire on their own too, also in a session that lives on.
    db.prepare('INSERT INTO Session (id, userId, method, expiresAt, maxExpiresAt) VALUES (?, ?, ?, ?, ?)').run('living', userId, 'password', future, future);
    const insert = (expiresAt: string, tag: string) => {
      db.prepare('INSERT INTO Session (id, userId, method, expiresAt, maxExpiresAt) VALUES (?, ?, ?, ?, ?)').run(`${tag}-session`, userId, 'password', expiresAt, expiresAt);
      db.prepare('INSERT INTO RefreshToken (id, tokenHash, sessionId, expiresAt) VALUES (?, ?, ?, ?)').run(`${tag}-refresh`, `${tag}-h0`, 'living', expiresAt);
      db.prepare('INSERT INTO OneTimeToken (id, purpose, tokenHash, email, expiresAt) VALUES (?, ?, ?, ?, ?)').run(`${tag}-link`, 'magic_link', `${tag}-h1`, 'x@example.com', expiresAt);
      db.prepare('INSERT INTO OneTimeToken (id, purpose, tokenHash, expiresAt, usedAt) VALUES (?, ?, ?, ?, ?)').run(`${tag}-state`, 'oauth_state', `${tag}-h2`, expiresAt, now);
      db.prepare('INSERT INTO TwoFactorChallenge (id, tokenHash, userId, expiresAt, method) VALUES (?, ?, ?, ?, ?)').run(`${tag}-challenge`, `${tag}-h3`, userId, expiresAt, 'password');
      db.prepare('INSERT INTO AuthjsSession (id, sessionTokenHash, userId, expires) VALUES (?, ?, ?, ?)').run(`${tag}-session`, `${tag}-h4`, authjsUserId, expiresAt);
      db.prepare('INSERT INTO AuthjsVerificationToken (identifier, token, expires) VALUES (?, ?, ?)').run(`${tag}@example.com`, `${tag}-h5`, expiresAt);
    };
    for (let i = 0; i < 50; i++) insert(past, `expired-${i}`);
    insert(future, 'live');
    const tables = ['Session', 'RefreshToken', 'OneTimeToken', 'TwoFactorChallenge', 'AuthjsSession', 'AuthjsVerificationToken'];
    const counts = () => Object.fromEntries(tables.map((table) => [table, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n]));
    expect(counts()).toEqual({ Session: 1 + 50 + 1, RefreshToken: 50 + 1, OneTimeToken: 100 + 2, TwoFactorChallenge: 50 + 1, AuthjsSession: 50 + 1, AuthjsVerificationToken: 50 + 1 });

    const app = await startAppProcess(fixture.dir, running.env({ DATABASE_URL: url }));
    try {
      await app.waitForOutput('expired rows deleted', 10_000);
      expect(counts()).toEqual({ Session: 2, RefreshToken: 1, OneTimeToken: 2, TwoFactorChallenge: 1, AuthjsSession: 1, AuthjsVerificationToken: 1 });
      expect(app.output()).toMatch(/"deleted":350\b/);
    } finally {
      await app.stop();
      db.close();
    }
  }, 60_000);
});
