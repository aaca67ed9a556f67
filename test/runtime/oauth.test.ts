/**
 * OAuth sign-in (CONTRACT B.6) for all 12 providers on the full fixture, against the fake provider
 * server that speaks each provider's wire format and checks what the real one checks. Every flow
 * is real HTTP: the app process, the fake, and a cookie jar following the redirects between them.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { register, uniqueEmail, verifyEmail } from '../helpers/accounts.js';
import { call, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { PROVIDER_IDS, startFakeProviders, type FakeProviders, type FakeUser, type Fault, type ProviderId } from '../helpers/fake-oauth/index.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { tokenIssuedAgo } from '../helpers/old-token.js';
import { CookieJar, exchange, openCallback, requestLink, signIn, toCallback, visit, type Landing } from '../helpers/oauth-browser.js';
import { expectCleanLogs, TEST_APP_URL as FRONT_END, useRunningApp } from '../helpers/running-app.js';
import { countRows } from '../helpers/sqlite-file.js';
import { nextCode } from '../helpers/totp-codes.js';

const PASSWORD = 'correct horse battery staple';
const OIDC: ProviderId[] = ['google', 'microsoft', 'apple', 'linkedin', 'gitlab', 'slack', 'twitch', 'oidc'];
/** Facebook gives no verified-email signal, so its address never counts as verified. */
const verifies = (provider: ProviderId) => provider !== 'facebook';
/** X sends no address at all unless it is confirmed. */
const unverifiedEmailIsSent = (provider: ProviderId) => provider !== 'twitter';

let fixture: PreparedFixture;
let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders();
  fixture = await sharedFixture('full');
});
afterAll(async () => {
  await fake?.close();
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'oauth'), env: () => fake.envAll() });
// Every test starts with no queued person or fault at the fake (a refused authorize leaves its person queued).
beforeEach(() => fake.reset());
const url = () => running.app.url;

let counter = 0;
/** A provider-side person; numeric ids suit every provider (GitHub's are numbers). */
function person(provider: ProviderId, fields: Partial<FakeUser> = {}): FakeUser {
  counter += 1;
  return { id: `${Date.now()}${counter}`, email: uniqueEmail(provider), emailVerified: true, name: `${provider} person ${counter}`, ...fields };
}

async function signInAs(provider: ProviderId, user: FakeUser, options: { query?: Record<string, string>; startUrl?: string; appUrl?: string; jar?: CookieJar } = {}) {
  fake.nextUser(provider, user);
  return signIn({ appUrl: options.appUrl ?? url(), frontEndUrl: FRONT_END, provider, ...options });
}

async function exchangeOk(landing: Landing & { jar: CookieJar }) {
  expect(landing.error, landing.url.href).toBeUndefined();
  const reply = await exchange(url(), landing.code!, landing.jar);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

const count = (sql: string, ...params: unknown[]): number => countRows(running.databaseUrl, sql, ...params);
const usersWith = (email: string) => count('SELECT count(*) AS n FROM User WHERE email = ?', email);
const identitiesWith = (email: string) => count('SELECT count(*) AS n FROM Account WHERE email = ?', email);
const identitiesOf = (provider: string) => count('SELECT count(*) AS n FROM Account WHERE provider = ?', provider);

/** Registers with a password; `verified` proves the mailbox through the real mail link. */
const account = (email: string, verified: boolean) => register(running, { email, password: PASSWORD, verified });

describe.each(PROVIDER_IDS)('%s', (provider) => {
  it('signs in end to end, and the same identity signs in again as the same user', async () => {
    const user = person(provider);
    const first = await signInAs(provider, user, { query: { returnTo: '/welcome?tab=1' } });
    expect(first.returnTo, first.url.href).toBe('/welcome?tab=1');
    const signedIn = await exchangeOk(first);
    expect(signedIn).toMatchObject({ tokenType: 'Bearer', user: { email: user.email, emailVerified: verifies(provider), twoFactorEnabled: false } });
    expect(signedIn.user.name).toBeTruthy();
    const again = await exchangeOk(await signInAs(provider, { ...user, firstLogin: false }));
    expect(again.user.id).toBe(signedIn.user.id);
    const identities = await call(url(), '/api/auth/identities', { token: again.token });
    expect(identities.body.identities).toEqual([{ id: expect.any(String), provider, email: user.email, createdAt: expect.any(String) }]);
    expect(usersWith(user.email!)).toBe(1);
  });

  it('sends the configured redirect_uri, state, and PKCE and nonce as the provider takes them, whatever Host the start request names', async () => {
    const location = await new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(url());
      httpRequest({ hostname, port, path: `/api/auth/${provider}`, headers: { host: 'evil.test', 'x-forwarded-host': 'evil.test' } }, (res) => {
        res.resume();
        resolve(String(res.headers.location));
      })
        .on('error', reject)
        .end();
    });
    const authorize = new URL(location);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${url()}/api/auth/${provider}/callback`);
    expect(authorize.searchParams.get('response_type')).toBe('code');
    expect(Buffer.from(authorize.searchParams.get('state')!, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    // Twitch's discovery document (and the fake's) offers no S256, so PKCE is left out there.
    const pkce = !['facebook', 'apple', 'linkedin', 'slack', 'twitch'].includes(provider);
    expect(authorize.searchParams.get('code_challenge_method'), 'PKCE').toBe(pkce ? 'S256' : null);
    expect(authorize.searchParams.has('nonce'), 'nonce').toBe(OIDC.includes(provider));
  });

  it('refuses a missing, wrong or replayed state, and a cookie of another provider (invalid_state), creating nothing', async () => {
    const user = person(provider);
    const callbackFor = async () => {
      const jar = new CookieJar();
      fake.nextUser(provider, user);
      const start = await visit(jar, `${url()}/api/auth/${provider}`);
      return { jar, callback: new URL(await toCallback(jar, start.location!)) };
    };
    const missing = await callbackFor();
    missing.callback.searchParams.delete('state');
    expect((await openCallback(missing.jar, missing.callback.href, FRONT_END)).error).toBe('invalid_state');

    const wrong = await callbackFor();
    wrong.callback.searchParams.set('state', 'x'.repeat(43));
    expect((await openCallback(wrong.jar, wrong.callback.href, FRONT_END)).error).toBe('invalid_state');

    const other = PROVIDER_IDS.find((candidate) => candidate !== provider)!;
    const crossed = await callbackFor();
    const foreign = new URL(`${url()}/api/auth/${other}/callback`);
    foreign.search = crossed.callback.search;
    expect((await openCallback(crossed.jar, foreign.href, FRONT_END)).error).toBe('invalid_state');
    expect(usersWith(user.email!)).toBe(0);

    // A copy of the cookie, kept by whoever captured the callback, is refused after the first use.
    const replayed = await callbackFor();
    const copy = replayed.jar.clone();
    expect((await openCallback(replayed.jar, replayed.callback.href, FRONT_END)).code).toBeDefined();
    expect((await openCallback(copy, replayed.callback.href, FRONT_END)).error).toBe('invalid_state');
    expect(identitiesWith(user.email!)).toBe(1);
  });

  it('takes each exchange code once, and refuses unknown ones (401 INVALID_TOKEN)', async () => {
    const landing = await signInAs(provider, person(provider));
    await exchangeOk(landing);
    for (const code of [landing.code!, 'A'.repeat(43)]) {
      const reply = await exchange(url(), code, landing.jar);
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('INVALID_TOKEN');
    }
  });

  it(`links a provider-verified email to the existing user; an unverified one gives ${unverifiedEmailIsSent(provider) ? 'account_exists' : 'email_required'} and links nothing`, async () => {
    const owner = await account(uniqueEmail(`${provider}-owner`), true);
    const unverified = await signInAs(provider, person(provider, { email: owner.email, emailVerified: false }));
    expect(unverified.error).toBe(unverifiedEmailIsSent(provider) ? 'account_exists' : 'email_required');
    expect(identitiesWith(owner.email)).toBe(0);

    const verified = await signInAs(provider, person(provider, { email: owner.email }));
    if (!verifies(provider)) {
      expect(verified.error).toBe('account_exists');
      expect(identitiesWith(owner.email)).toBe(0);
      return;
    }
    expect((await exchangeOk(verified)).user.id).toBe(owner.userId);
    expect(identitiesWith(owner.email)).toBe(1);
    expect((await call(url(), '/api/auth/me', { token: owner.token })).status).toBe(200);
  });

  it('a provider-verified email takes a provisional account over: same id, the squatter locked out (B.2)', async () => {
    const squatter = await account(uniqueEmail(`${provider}-victim`), false);
    const landing = await signInAs(provider, person(provider, { email: squatter.email }));
    if (!verifies(provider)) {
      expect(landing.error).toBe('account_exists');
      return;
    }
    const owner = await exchangeOk(landing);
    expect(owner.user).toMatchObject({ id: squatter.userId, emailVerified: true });
    expect((await call(url(), '/api/auth/me', { token: squatter.token })).status).toBe(401);
    expect((await call(url(), '/api/auth/login', { json: { email: squatter.email, password: PASSWORD } })).status).toBe(401);
  });

  it('without an email: email_required, nothing created', async () => {
    const before = identitiesOf(provider);
    expect((await signInAs(provider, person(provider, { email: null }))).error).toBe('email_required');
    expect(identitiesOf(provider)).toBe(before);
  });

  it('the user cancelling: access_denied; a failing token endpoint or profile API: provider_error', async () => {
    const faults: [Fault, string][] = [
      ['access_denied', 'access_denied'],
      ['token_500', 'provider_error'],
      ['token_error_200', 'provider_error'],
    ];
    // Apple has no userinfo endpoint; an OIDC provider's userinfo is called when the id_token has no email.
    if (provider !== 'apple') faults.push(['userinfo_500', 'provider_error']);
    for (const [fault, error] of faults) {
      fake.reset();
      fake.failNext(provider, fault);
      const user = person(provider, fault === 'userinfo_500' && OIDC.includes(provider) ? { email: null } : {});
      expect((await signInAs(provider, user)).error, fault).toBe(error);
    }
  });

  it('a user with two-factor on gets the mfa answer at the exchange, and a token only after the second factor', async () => {
    const user = person(provider);
    const first = await exchangeOk(await signInAs(provider, user));
    if (!first.user.emailVerified) await verifyEmail(running, { email: user.email!, token: first.token });
    const setup = await call(url(), '/api/auth/2fa/setup', { method: 'POST', token: first.token });
    const device = { secret: setup.body.secret as string, lastStep: -1 };
    expect((await call(url(), '/api/auth/2fa/enable', { token: first.token, json: { code: await nextCode(device) } })).status).toBe(200);
    const landing = await signInAs(provider, { ...user, firstLogin: false });
    const answer = await exchange(url(), landing.code!, landing.jar);
    expect(answer.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
    const verified = await call(url(), '/api/auth/2fa/verify', { json: { mfaToken: answer.body.mfaToken, code: await nextCode(device) } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.id).toBe(first.user.id);
  }, 75_000);

  it('links to the signed-in user through /link; the identity of another user gives identity_in_use; unlinking removes it', async () => {
    const owner = await account(uniqueEmail(`${provider}-linker`), true);
    const them = person(provider, { email: uniqueEmail(`${provider}-elsewhere`) });
    const browser = new CookieJar();
    const link = await requestLink(url(), provider, owner.token, browser, { returnTo: '/settings' });
    expect(link.status).toBe(200);
    expect(link.body.url.startsWith(`${url()}/api/auth/${provider}?`)).toBe(true);
    const linked = await signInAs(provider, them, { startUrl: link.body.url, jar: browser });
    expect(linked.returnTo).toBe('/settings');
    expect((await exchangeOk(linked)).user.id).toBe(owner.userId);
    // The link ticket works once.
    expect((await signInAs(provider, them, { startUrl: link.body.url, jar: browser })).error).toBe('invalid_state');

    const other = await account(uniqueEmail(`${provider}-other`), true);
    const otherBrowser = new CookieJar();
    const second = await requestLink(url(), provider, other.token, otherBrowser);
    expect((await signInAs(provider, them, { startUrl: second.body.url, jar: otherBrowser })).error).toBe('identity_in_use');

    const identities = (await call(url(), '/api/auth/identities', { token: owner.token })).body.identities as { id: string; provider: string }[];
    expect(identities.map((identity) => identity.provider)).toEqual([provider]);
    expect((await call(url(), `/api/auth/identities/${identities[0]!.id}`, { method: 'DELETE', token: other.token })).status).toBe(404);
    expect((await call(url(), `/api/auth/identities/${identities[0]!.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await call(url(), '/api/auth/identities', { token: owner.token })).body.identities).toEqual([]);
  });
});

describe.each(OIDC)('%s id_token checks', (provider) => {
  const faults: Fault[] = [
    'id_token_bad_signature',
    'id_token_wrong_aud',
    'id_token_wrong_iss',
    'id_token_expired',
    'id_token_wrong_nonce',
    'id_token_alg_none',
    'id_token_hs256_client_secret',
    'id_token_unknown_kid',
    ...(provider === 'linkedin' ? [] : (['id_token_no_nonce'] as Fault[])),
  ];
  it.each(faults)('%s: provider_error, nobody signed in or created', async (fault) => {
    const user = person(provider);
    fake.failNext(provider, fault);
    expect((await signInAs(provider, user)).error).toBe('provider_error');
    expect(usersWith(user.email!)).toBe(0);
  });
});

describe('returnTo', () => {
  it.each(['//evil.example/x', 'https://evil.example', '/\\evil.example', '\\\\evil.example', '/%0d%0aSet-Cookie:x', 'javascript:alert(1)', '/a\tb', 'evil.example'])(
    'sends %j back as /',
    async (returnTo) => {
      const landing = await signInAs('github', person('github'), { query: { returnTo } });
      expect(landing.returnTo).toBe(returnTo === '/%0d%0aSet-Cookie:x' ? returnTo : '/');
    },
  );
});

describe('links and unlinks need a recent sign-in', () => {
  it('a token older than REAUTH_MAX_AGE_MINUTES gets 403 REAUTH_REQUIRED from /link and DELETE /identities/:id', async () => {
    const owner = await exchangeOk(await signInAs('gitlab', person('gitlab')));
    const old = await tokenIssuedAgo(running.databaseUrl, owner.user.id, 16);
    const link = await call(url(), '/api/auth/github/link', { token: old, json: {} });
    expect(link.status).toBe(403);
    expect(link.body.error.code).toBe('REAUTH_REQUIRED');
    const [identity] = (await call(url(), '/api/auth/identities', { token: old })).body.identities;
    const unlink = await call(url(), `/api/auth/identities/${identity.id}`, { method: 'DELETE', token: old });
    expect(unlink.status).toBe(403);
    expect(unlink.body.error.code).toBe('REAUTH_REQUIRED');
  });
});

describe('a provider that hangs', () => {
  it('ends every flow in provider_error within the 10 s timeout while the app keeps answering', async () => {
    const hanging = PROVIDER_IDS.map((provider) => {
      fake.failNext(provider, 'token_hang');
      return signInAs(provider, person(provider));
    });
    expect((await call(url(), '/healthz')).status).toBe(200);
    const landings = await Promise.all(hanging);
    expect(landings.map((landing) => landing.error)).toEqual(PROVIDER_IDS.map(() => 'provider_error'));
  }, 30_000);
});

describe('discovery', () => {
  let fresh: AppProcess;
  beforeAll(async () => {
    // A new process: discovery documents are cached once they are fetched.
    fresh = await startAppProcess(fixture.dir, running.env());
  });
  afterAll(async () => {
    await fresh?.stop();
  });

  it.each(OIDC)('%s: a discovery document naming another issuer, or none at all, stops the start with provider_error', async (provider) => {
    for (const fault of ['discovery_issuer_mismatch', 'discovery_500'] as Fault[]) {
      fake.failNext(provider, fault);
      const landing = await signIn({ appUrl: fresh.url, frontEndUrl: FRONT_END, provider });
      expect(landing.error, fault).toBe('provider_error');
    }
    expect((await signInAs(provider, person(provider), { appUrl: fresh.url })).code).toBeDefined();
  });
});

describe('logs', () => {
  it('hold no code, token, client secret or provider answer', async () => {
    const landing = await signInAs('google', person('google'));
    const body = await exchangeOk(landing);
    const secrets = Object.entries(fake.envAll()).filter(([name]) => /SECRET|PRIVATE_KEY/.test(name)).map(([, value]) => value);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expectCleanLogs(running.app.output(), [landing.code!, body.token, ...secrets, ...fake.authorizations().map((authorization) => authorization.code)]);
    expect(running.app.output()).not.toContain('"unhandled error"');
  });
});

describe('email verification still means the mailbox', () => {
  it('a password user who verified later is linked by a verified provider email, keeping the password', async () => {
    const owner = await account(uniqueEmail('late'), false);
    await verifyEmail(running, owner);
    expect((await exchangeOk(await signInAs('google', person('google', { email: owner.email })))).user.id).toBe(owner.userId);
    expect((await call(url(), '/api/auth/login', { json: { email: owner.email, password: PASSWORD } })).status).toBe(200);
  });
});
