/**
 * The second attack pass (issue 22) against what the app does with OAuth providers, on the full
 * fixture and the fake providers: starts that cannot proceed, floods of starts and callbacks, an
 * email paired with another source's verification claim, id_tokens that live too long, and
 * provider answers too large to read. Each test performs the attack against the real running app;
 * its comment says how it went before the fix.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { register, uniqueEmail } from '../helpers/accounts.js';
import { call, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { startFakeProviders, type FakeProviders, type FakeUser, type Fault, type ProviderId, type RecordedRequest } from '../helpers/fake-oauth/index.js';
import { HUGE_ANSWER_BYTES } from '../helpers/fake-oauth/http.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { CookieJar, exchange, openCallback, signIn, toCallback, visit, type Landing } from '../helpers/oauth-browser.js';
import { TEST_APP_URL as FRONT_END, useRunningApp } from '../helpers/running-app.js';
import { countRows } from '../helpers/sqlite-file.js';

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
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'security-providers'), env: () => fake.envAll() });
beforeEach(() => fake.reset());

let counter = 0;
function person(provider: ProviderId, fields: Partial<FakeUser> = {}): FakeUser {
  counter += 1;
  return { id: `${Date.now()}${counter}`, email: uniqueEmail(provider), emailVerified: true, name: `${provider} person ${counter}`, ...fields };
}

function signInAs(appUrl: string, provider: ProviderId, user: FakeUser): Promise<Landing & { jar: CookieJar }> {
  fake.nextUser(provider, user);
  return signIn({ appUrl, frontEndUrl: FRONT_END, provider });
}

/** Another instance of the app (discovery documents and JWKS are cached per process). */
async function withApp<T>(extra: Record<string, string>, use: (app: AppProcess) => Promise<T>): Promise<T> {
  const app = await startAppProcess(fixture.dir, running.env(extra));
  try {
    return await use(app);
  } finally {
    await app.stop();
  }
}

const count = (sql: string, ...params: unknown[]): number => countRows(running.databaseUrl, sql, ...params);
const usersWith = (email: string) => count('SELECT count(*) AS n FROM User WHERE email = ?', email);
const identitiesOf = (userId: string) => count('SELECT count(*) AS n FROM Account WHERE userId = ?', userId);
const requestsTo = (provider: ProviderId, endpoint: RecordedRequest['endpoint']) => fake.requests(provider).filter((record) => record.endpoint === endpoint);

describe('finding 5c: an OAuth start that cannot proceed is provider_error, never a 500, and a bad discovery document is not cached', () => {
  // Before: a document without a usable authorization_endpoint was cached for an hour, and every
  // start built its authorization URL from it and answered 500.
  it.each(['discovery_no_authorization_endpoint', 'discovery_authorization_endpoint_not_url', 'discovery_javascript_authorization_endpoint'] as Fault[])(
    '%s: the start redirects with provider_error, and once the provider is fixed the next start works',
    async (fault) => {
      await withApp({}, async (app) => {
        fake.failNext('oidc', fault);
        const start = await visit(new CookieJar(), `${app.url}/api/auth/oidc`);
        expect(start.status, start.body).toBe(302);
        expect(start.location).toBe(`${FRONT_END}/auth/callback?error=provider_error`);
        const user = person('oidc');
        const landing = await signInAs(app.url, 'oidc', user);
        expect(landing.code, landing.url.href).toBeDefined();
        expect(requestsTo('oidc', 'discovery').map((record) => record.outcome)).toEqual([fault, 'ok']);
        await app.waitForOutput('has no usable authorization_endpoint');
      });
    },
  );

  // Before: NODE_ENV=production with a provider's plain http endpoints answered the start with a 500.
  it('in production, plain http endpoints (configured or discovered) are provider_error at the start, and nothing is sent to them', async () => {
    await withApp({ NODE_ENV: 'production', BCRYPT_COST: '12' }, async (app) => {
      for (const provider of ['github', 'discord', 'google', 'oidc'] as ProviderId[]) {
        const start = await visit(new CookieJar(), `${app.url}/api/auth/${provider}`);
        expect(start.status, `${provider}: ${start.body}`).toBe(302);
        expect(start.location, provider).toBe(`${FRONT_END}/auth/callback?error=provider_error`);
      }
      expect(fake.requests()).toEqual([]);
      await app.waitForOutput("GitHub's authorization and token endpoints must be https in production");
      await app.waitForOutput('needs https in production');
      expect(app.output()).not.toContain('"unhandled error"');
    });
  });
});

describe('finding 6: OAuth start and callback are rate limited per client IP, each with its own budget', () => {
  // Before: neither was limited; 848 start/callback pairs in 20 s made 848 token requests with the
  // app's client secret.
  it('past RATE_LIMIT_MAX, starts and callbacks get 429 RATE_LIMITED with Retry-After, and the token endpoint sees no more than the limit', async () => {
    const max = 3;
    await withApp({ RATE_LIMIT_MAX: String(max), RATE_LIMIT_WINDOW_SECONDS: '60' }, async (app) => {
      const starts: { jar: CookieJar; status: number; location?: string; retryAfter: string | null }[] = [];
      for (let i = 0; i < max + 3; i++) {
        const jar = new CookieJar();
        fake.nextUser('github', person('github'));
        const response = await fetch(`${app.url}/api/auth/github`, { redirect: 'manual' });
        jar.capture(`${app.url}/api/auth/github`, response);
        starts.push({ jar, status: response.status, location: response.headers.get('location') ?? undefined, retryAfter: response.headers.get('retry-after') });
        if (response.status === 429) expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
        else await response.text();
      }
      expect(starts.map((start) => start.status)).toEqual([302, 302, 302, 429, 429, 429]);
      for (const refused of starts.slice(max)) expect(Number(refused.retryAfter)).toBeGreaterThan(0);

      // The flows that did start come back; the start's exhausted budget does not count here.
      const callbacks = await Promise.all(starts.slice(0, max).map(async (start) => ({ jar: start.jar, url: await toCallback(start.jar, start.location!) })));
      for (const callback of callbacks) expect((await openCallback(callback.jar, callback.url, FRONT_END)).code).toBeDefined();
      // Replayed and forged callbacks past the budget are refused before anything else happens.
      for (const url of [callbacks[0]!.url, `${app.url}/api/auth/github/callback?code=forged&state=forged`]) {
        const reply = await call(url, '');
        expect(reply.status).toBe(429);
        expect(reply.body.error.code).toBe('RATE_LIMITED');
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(requestsTo('github', 'token')).toHaveLength(max);
      // Each provider has its own budget.
      expect((await visit(new CookieJar(), `${app.url}/api/auth/google`)).status).toBe(302);
    });
  });
});

describe('finding 9c: an email counts as verified only by the claim of the source that gave it', () => {
  // Before: an id_token with `email_verified: true` and no email was merged with userinfo's
  // unverified address, and that address linked to (and signed in as) the existing account.
  it.each(['google', 'linkedin', 'gitlab', 'slack', 'oidc'] as ProviderId[])(
    '%s: id_token email_verified without an email, userinfo an unverified address of an existing user: account_exists, nothing linked',
    async (provider) => {
      const victim = await register(running, { email: uniqueEmail(`victim-${provider}`), password: PASSWORD, verified: true });
      const landing = await signInAs(running.app.url, provider, person(provider, { email: victim.email, emailVerified: false, emailClaimsSplit: true }));
      expect(landing.code, landing.url.href).toBeUndefined();
      expect(landing.error).toBe('account_exists');
      expect(identitiesOf(victim.userId)).toBe(0);
      expect(usersWith(victim.email)).toBe(1);
    },
  );

  it('when userinfo itself says the address is verified, it links as before', async () => {
    const owner = await register(running, { email: uniqueEmail('owner-split'), password: PASSWORD, verified: true });
    const landing = await signInAs(running.app.url, 'oidc', person('oidc', { email: owner.email, emailVerified: true, emailClaimsSplit: true }));
    const reply = await exchange(running.app.url, landing.code!, landing.jar);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.user.id).toBe(owner.userId);
  });
});

describe('finding 9e: an id_token issued in the future or living longer than 24 hours is provider_error', () => {
  // Before: both were accepted: a 100-year id_token signed the user in.
  it.each(
    (['google', 'microsoft', 'apple', 'oidc'] as ProviderId[]).flatMap((provider) =>
      (['id_token_future_iat', 'id_token_long_lifetime'] as Fault[]).map((fault) => [provider, fault] as const),
    ),
  )('%s, %s: provider_error, nobody created', async (provider, fault) => {
    const user = person(provider);
    fake.failNext(provider, fault);
    expect((await signInAs(running.app.url, provider, user)).error).toBe('provider_error');
    expect(usersWith(user.email!)).toBe(0);
  });
});

describe('finding 9g: a provider answer over 1 MB is provider_error without being read in full', () => {
  /** The *_huge answer the app received: it closed the connection long before the end. */
  async function expectAbandoned(provider: ProviderId, endpoint: RecordedRequest['endpoint']) {
    const record = () => requestsTo(provider, endpoint).find((request) => request.outcome?.endsWith('_huge'));
    for (const deadline = Date.now() + 5000; record()?.abandoned === undefined && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(record(), `${provider} ${endpoint}`).toMatchObject({ complete: false, abandoned: true });
    expect(record()!.bytesSent).toBeLessThan(HUGE_ANSWER_BYTES / 2);
  }

  // Before: each answer was read in full (50 MB) and the sign-in went on as if nothing were wrong.
  it.each([
    ['oidc', 'discovery_huge', 'discovery'],
    ['google', 'jwks_huge', 'jwks'],
    ['google', 'token_huge', 'token'],
    ['github', 'token_huge', 'token'],
    ['github', 'userinfo_huge', 'userinfo'],
    ['discord', 'userinfo_huge', 'userinfo'],
  ] as [ProviderId, Fault, RecordedRequest['endpoint']][])('%s, %s: provider_error, nobody created', async (provider, fault, endpoint) => {
    // A new process, so that discovery and the JWKS are fetched, not cached.
    await withApp({}, async (app) => {
      const user = person(provider);
      fake.failNext(provider, fault);
      expect((await signInAs(app.url, provider, user)).error).toBe('provider_error');
      expect(usersWith(user.email!)).toBe(0);
      await expectAbandoned(provider, endpoint);
      await app.waitForOutput(`answered more than ${1024 * 1024} bytes`);
    });
  });

  it('oidc userinfo (the id_token has no email): provider_error, nobody created', async () => {
    const user = person('oidc', { email: null });
    fake.failNext('oidc', 'userinfo_huge');
    expect((await signInAs(running.app.url, 'oidc', user)).error).toBe('provider_error');
    await expectAbandoned('oidc', 'userinfo');
  });
});
