/**
 * CONTRACT B.7 on the full fixture (SQLite): every hosted service's exchange, the attacks on its
 * tokens, the linking rules, a hanging service, Auth.js's real flow, rate limits and clean logs.
 * The app runs as its own process, pointed at the stand-ins of test/helpers/fake-hosted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail } from '../helpers/accounts.js';
import { call, startAppProcess } from '../helpers/app-process.js';
import { nowSeconds } from '../helpers/fake-hosted/ids.js';
import type { TokenOverrides } from '../helpers/fake-hosted/index.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { CookieJar, visit } from '../helpers/oauth-browser.js';
import { expectCleanLogs, expectRateLimit, TEST_APP_URL } from '../helpers/running-app.js';
import { openSqlite, sqliteDate } from '../helpers/sqlite-file.js';
import {
  AUTH_SECRET,
  authjsExchange,
  authjsSignIn,
  describeHostedBasics,
  expectError,
  expectNoIdentities,
  expectSignedIn,
  openAuthjsLink,
  PASSWORD,
  startAuthjsSignIn,
  TOKEN_SERVICES,
  useHostedApp,
  type TokenServiceCase,
} from './hosted.scenarios.js';

let fixture: PreparedFixture;
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const hosted = useHostedApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'hosted') });
const fake = () => hosted.fake();

/** How many identities (provider, account id) the database holds: a refused token links nothing. */
function identityCount(provider: string, accountId: string): number {
  const db = openSqlite(hosted.running.databaseUrl, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM Account WHERE provider = ? AND providerAccountId = ?').get(provider, accountId) as { n: number }).n;
  } finally {
    db.close();
  }
}

describeHostedBasics(hosted);

/** Forged and misused tokens, each signed for a fresh user whose address the service verified. */
const ATTACKS: { name: string; overrides(service: TokenServiceCase): TokenOverrides }[] = [
  {
    name: 'a token of another issuer',
    overrides: (service) => ({ claims: { iss: service.id === 'auth0' ? `${fake().url}/other-tenant/` : `${fake().url}/other-${service.id}` } }),
  },
  {
    name: 'a token for another audience (Clerk: another front end in azp)',
    overrides: (service) => ({ claims: service.id === 'clerk' ? { azp: 'http://evil.test' } : service.id === 'auth0' ? { aud: ['https://other-api.test', `${fake().url}/auth0/userinfo`] } : { aud: 'anon' } }),
  },
  { name: 'an expired token', overrides: () => ({ claims: { exp: nowSeconds() - 120 } }) },
  { name: 'a token not valid yet (nbf ahead)', overrides: () => ({ claims: { nbf: nowSeconds() + 120 } }) },
  { name: 'a bad signature (another key, under the service kid)', overrides: () => ({ sign: 'other-key' }) },
  { name: 'alg none', overrides: () => ({ sign: 'none' }) },
  { name: 'HS256 signed with the service public key', overrides: () => ({ sign: 'hs256-with-public-key' }) },
  { name: 'a key from the token header (jwk, and jku at the attacker)', overrides: () => ({ sign: 'embedded-jwk' }) },
  {
    // Clerk verifies with CLERK_JWT_KEY whatever the kid says, so its case is signed by another key too.
    name: 'an unknown kid',
    overrides: (service) => (service.id === 'clerk' ? { header: { kid: 'ins_unknown' }, sign: 'other-key' } : { header: { kid: 'unknown-kid' } }),
  },
];

for (const service of TOKEN_SERVICES) {
  describe(`${service.name}: forged and misused tokens get 401 INVALID_TOKEN and link nothing`, () => {
    for (const attack of ATTACKS) {
      it(attack.name, async () => {
        const { subject, token } = await hosted.serviceToken(service, uniqueEmail(service.id), true, attack.overrides(service));
        expectError(await hosted.exchange(service.id, token), 401, 'INVALID_TOKEN');
        expect(identityCount(service.id, subject)).toBe(0);
      });
    }

    it('no token, or not a JWT', async () => {
      expectError(await hosted.api(`/api/auth/${service.id}/exchange`, { method: 'POST' }), 401, 'INVALID_TOKEN');
      expectError(await hosted.exchange(service.id, 'not-a-jwt'), 401, 'INVALID_TOKEN');
    });

    it('an API answering 5xx is 503 SERVICE_UNAVAILABLE', async () => {
      const { token } = await hosted.serviceToken(service, uniqueEmail(service.id), true);
      fake().failNext(service.id, 'api_500');
      expectError(await hosted.exchange(service.id, token), 503, 'SERVICE_UNAVAILABLE');
    });
  });
}

describe('service-specific checks', () => {
  const [clerk, auth0, supabase] = TOKEN_SERVICES as [TokenServiceCase, TokenServiceCase, TokenServiceCase];

  it('Clerk: a token without azp, a pending session and an M2M token are refused', async () => {
    for (const overrides of [{ claims: { azp: undefined } }, { claims: { sts: 'pending' } }, { header: { cat: 'cl_B7d4PD333AAA' } }]) {
      const { token } = await hosted.serviceToken(clerk, uniqueEmail('clerk'), true, overrides);
      expectError(await hosted.exchange('clerk', token), 401, 'INVALID_TOKEN');
    }
  });

  it("Clerk: the user is read from the Backend API with the secret key; a deleted user's token is refused", async () => {
    const { token } = await hosted.serviceToken(clerk, uniqueEmail('clerk'), true);
    fake().clearRequests();
    expect((await hosted.exchange('clerk', token)).status).toBe(200);
    const lookup = fake().requests('clerk').find((request) => request.path.startsWith('/clerk-api/v1/users/'));
    expect(lookup?.headers.authorization).toBe(`Bearer ${fake().clerk.env().CLERK_SECRET_KEY}`);
    const gone = await fake().clerk.sessionToken('user_neverexisted');
    hosted.secrets.push(gone);
    expectError(await hosted.exchange('clerk', gone), 401, 'INVALID_TOKEN');
  });

  it('Clerk: an unverified primary address is not made verified by a verified secondary one', async () => {
    const owner = await register(hosted.running, { password: PASSWORD, verified: true });
    const subject = fake().clerk.addUser({ email: owner.email, primaryEmailStatus: 'unverified', otherEmails: [{ email: uniqueEmail('other'), status: 'verified' }] });
    const token = await fake().clerk.sessionToken(subject);
    hosted.secrets.push(token);
    expectError(await hosted.exchange('clerk', token), 409, 'ACCOUNT_EXISTS');
    await expectNoIdentities(hosted, owner);
  });

  it('Auth0: a token without the /userinfo audience (no openid scope) is refused: no email without /userinfo', async () => {
    const { token } = await hosted.serviceToken(auth0, uniqueEmail('auth0'), true, { claims: { aud: 'https://api.gatekit.test' } });
    expectError(await hosted.exchange('auth0', token), 401, 'INVALID_TOKEN');
  });

  it('Supabase: a legacy HS256 token works while SUPABASE_JWT_SECRET is set; /auth/v1/user gets the anon key', async () => {
    const email = uniqueEmail('supabase');
    const token = await fake().supabase.accessToken(supabase.addUser(fake(), email, true), { alg: 'HS256' });
    hosted.secrets.push(token);
    fake().clearRequests();
    await expectSignedIn(hosted, await hosted.exchange('supabase', token), { email, emailVerified: true });
    const lookup = fake().requests('supabase').find((request) => request.path === '/supabase/auth/v1/user');
    expect(lookup?.headers.apikey).toBe(fake().supabase.env().SUPABASE_ANON_KEY);
  });

  it('Supabase: a forged user_metadata.email_verified does not make a new account verified', async () => {
    const email = uniqueEmail('supabase');
    const { token } = await hosted.serviceToken(supabase, email, false);
    await expectSignedIn(hosted, await hosted.exchange('supabase', token), { email, emailVerified: false });
  });
});

describe.concurrent('a service that hangs', () => {
  for (const service of TOKEN_SERVICES) {
    it(`${service.name}: 503 SERVICE_UNAVAILABLE within the 10 s timeout, and the app keeps serving`, async ({ expect }) => {
      const { token } = await hosted.serviceToken(service, uniqueEmail(service.id), true);
      fake().failNext(service.id, 'api_hang');
      const started = Date.now();
      const reply = await hosted.exchange(service.id, token);
      const elapsed = Date.now() - started;
      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(elapsed).toBeGreaterThanOrEqual(9_000);
      expect(elapsed).toBeLessThan(12_000);
      expect((await hosted.api('/healthz')).status).toBe(200);
      const { token: next } = await hosted.serviceToken(service, uniqueEmail(service.id), true);
      expect((await hosted.exchange(service.id, next)).status).toBe(200);
    }, 30_000);
  }
});

describe('Auth.js: attacks and edges', () => {
  it('a forged Host or X-Forwarded-Host on the sign-in request never reaches the mail: the link is on API_URL', async () => {
    const forgeries: Record<string, string>[] = [{ host: 'evil.example' }, { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }];
    for (const headers of forgeries) {
      const email = uniqueEmail('authjs');
      const browser = await startAuthjsSignIn(hosted, email, { headers });
      expect(browser.link.startsWith(`${hosted.running.app.url}/api/auth/authjs/callback/email?`)).toBe(true);
      expect(browser.link).not.toContain('evil.example');
      await openAuthjsLink(hosted, browser);
      await expectSignedIn(hosted, await authjsExchange(hosted, browser.jar), { email });
    }
  });

  it('a callbackUrl on another site lands on APP_URL instead', async () => {
    const browser = await startAuthjsSignIn(hosted, uniqueEmail('authjs'), { callbackUrl: 'https://evil.example/phish' });
    expect(await openAuthjsLink(hosted, browser)).toBe(`${TEST_APP_URL}/`);
  });

  it("a mailed link works once; the failure lands on the front end's callback page, never on a 5xx page", async () => {
    const browser = await startAuthjsSignIn(hosted, uniqueEmail('authjs'));
    await openAuthjsLink(hosted, browser);
    const jar = new CookieJar();
    const second = await visit(jar, browser.link);
    expect(second.location).toBe(`${hosted.running.app.url}/api/auth/authjs/error?error=Verification`);
    expect((await visit(jar, second.location!)).location).toBe(`${TEST_APP_URL}/auth/callback?error=invalid_token`);
    const configuration = await visit(jar, `${hosted.running.app.url}/api/auth/authjs/error?error=Configuration`);
    expect(configuration).toMatchObject({ status: 302, location: `${TEST_APP_URL}/auth/callback?error=provider_error` });
  });

  it('an Auth.js user whose address Auth.js never verified does not link to an existing account: 409 ACCOUNT_EXISTS', async () => {
    const owner = await register(hosted.running, { password: PASSWORD, verified: true });
    // As an OAuth provider added to Auth.js would leave it: emailVerified null.
    const sessionToken = randomBytes(32).toString('hex');
    hosted.secrets.push(sessionToken);
    const db = openSqlite(hosted.running.databaseUrl);
    try {
      const userId = `authjs-unverified-${Date.now()}`;
      db.prepare('INSERT INTO AuthjsUser (id, email, emailVerified, createdAt) VALUES (?, ?, NULL, ?)').run(userId, owner.email, sqliteDate(Date.now()));
      db.prepare('INSERT INTO AuthjsSession (id, sessionTokenHash, userId, expires, createdAt) VALUES (?, ?, ?, ?, ?)').run(
        `session-${userId}`,
        createHash('sha256').update(sessionToken).digest('hex'),
        userId,
        sqliteDate(Date.now() + 3_600_000),
        sqliteDate(Date.now()),
      );
    } finally {
      db.close();
    }
    const reply = await call(hosted.running.app.url, '/api/auth/authjs/exchange', { method: 'POST', headers: { cookie: `authjs.session-token=${sessionToken}` } });
    expectError(reply, 409, 'ACCOUNT_EXISTS');
    await expectNoIdentities(hosted, owner);
  });

  it('logout-all ends the Auth.js session too: it cannot be exchanged again', async () => {
    const { reply, jar } = await authjsSignIn(hosted, uniqueEmail('authjs'));
    expect(reply.status).toBe(200);
    expect((await hosted.api('/api/auth/logout-all', { method: 'POST', token: reply.body.token })).status).toBe(204);
    expectError(await authjsExchange(hosted, jar), 401, 'INVALID_TOKEN');
  });

  it('the exchange without a session, or with an unknown one, is 401 INVALID_TOKEN', async () => {
    expectError(await authjsExchange(hosted, new CookieJar()), 401, 'INVALID_TOKEN');
    const forged = await call(hosted.running.app.url, '/api/auth/authjs/exchange', { method: 'POST', headers: { cookie: `authjs.session-token=${randomBytes(32).toString('hex')}` } });
    expectError(forged, 401, 'INVALID_TOKEN');
  });

  it("only Auth.js's actions are passed to it: anything else under the prefix is the app's 404, malformed requests are never 5xx", async () => {
    for (const [method, path] of [['GET', '/api/auth/authjs/webauthn-options'], ['PUT', '/api/auth/authjs/session'], ['POST', '/api/auth/authjs/session'], ['GET', '/api/auth/authjs/nope/deeper']]) {
      expectError(await hosted.api(path!, { method }), 404, 'NOT_FOUND');
    }
    const url = `${hosted.running.app.url}/api/auth/authjs`;
    const json = { 'content-type': 'application/json' };
    const hops = await Promise.all([
      visit(new CookieJar(), `${url}/signin/email`, { method: 'POST', headers: json, body: JSON.stringify({ email: uniqueEmail('authjs') }) }), // no CSRF token
      visit(new CookieJar(), `${url}/signin/github`, { method: 'POST', headers: json, body: '{}' }), // no such provider
      visit(new CookieJar(), `${url}/callback/email`), // no token
      visit(new CookieJar(), `${url}/callback/email?token=guess&email=a%40example.com`),
      visit(new CookieJar(), `${url}/signin/email`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'email=a%40example.com' }),
    ]);
    for (const hop of hops) {
      expect(hop.status, hop.body).toBeLessThan(500);
      if (hop.status >= 400) expect(Object.keys(JSON.parse(hop.body))).toEqual(['error']);
      if (hop.status === 302) expect(hop.location).toMatch(new RegExp(`^(${url}/(error|signin|verify-request)|${TEST_APP_URL}/auth/callback)\\?`));
    }
  });
});

describe('rate limits', () => {
  it('every exchange and the Auth.js sign-in have their own per-IP budget (429 RATE_LIMITED with Retry-After)', async () => {
    const noToken = (url: string, service: string) => call(url, `/api/auth/${service}/exchange`, { method: 'POST' });
    await expectRateLimit(hosted.running, fixture, {
      max: 2,
      allowedStatus: 401,
      request: (url) => noToken(url, 'clerk'),
      after: async (url) => {
        const budgets: [string, (url: string) => Promise<{ status: number }>, number][] = [
          ['auth0', (target) => noToken(target, 'auth0'), 401],
          ['supabase', (target) => noToken(target, 'supabase'), 401],
          ['authjs', (target) => noToken(target, 'authjs'), 401],
          ['authjs sign-in', async (target) => visit(new CookieJar(), `${target}/api/auth/authjs/signin/email`, { form: { email: 'limit@example.com' } }), 302],
        ];
        for (const [name, request, status] of budgets) {
          const statuses = [];
          for (let i = 0; i < 3; i++) statuses.push((await request(url)).status);
          expect(statuses, name).toEqual([status, status, 429]);
        }
      },
    });
  });
});

describe('without their variables', () => {
  it('the app starts, and each service answers 404 PROVIDER_NOT_CONFIGURED', async () => {
    const env = hosted.running.env();
    for (const name of Object.keys(env)) if (/^(CLERK|AUTH0|SUPABASE)_|^AUTH_SECRET$/.test(name)) delete env[name];
    const bare = await startAppProcess(fixture.dir, env);
    try {
      for (const service of ['clerk', 'auth0', 'supabase', 'authjs']) {
        expectError(await call(bare.url, `/api/auth/${service}/exchange`, { method: 'POST', headers: { authorization: 'Bearer a.b.c' } }), 404, 'PROVIDER_NOT_CONFIGURED');
      }
      expectError(await call(bare.url, '/api/auth/authjs/csrf'), 404, 'PROVIDER_NOT_CONFIGURED');
      expect((await call(bare.url, '/api/auth/providers')).body.hosted).toEqual(['clerk', 'authjs', 'auth0', 'supabase', 'totp']);
      expect((await call(bare.url, '/healthz')).status).toBe(200);
    } finally {
      await bare.stop();
    }
  });
});

describe('logs', () => {
  it('are JSON lines without any token, cookie, key or secret the suite used', () => {
    const env = hosted.running.env();
    expect(hosted.secrets.length).toBeGreaterThan(50);
    expectCleanLogs(hosted.running.app.output(), [
      ...hosted.secrets,
      env.CLERK_SECRET_KEY!,
      env.SUPABASE_ANON_KEY!,
      env.SUPABASE_JWT_SECRET!,
      AUTH_SECRET,
    ]);
  });
});
