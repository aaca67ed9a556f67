/**
 * The OAuth findings of issue 22's attack pass, against the full fixture running as its own process
 * with the fake OAuth provider: the linking CSRF (medium), login CSRF through the exchange code,
 * link flows that outlived a revocation, the callback page's `?error=__proto__`, and the flow
 * cookie without the __Host- prefix over https. Each describe is one finding; each test performs
 * the attack (over HTTP with a cookie jar per browser, or in Chromium) and asserts that it fails as
 * CONTRACT B.2 and B.6 say. The comment above each test says how it failed before the fix.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { register, uniqueEmail, type Account } from '../helpers/accounts.js';
import { call, freePort, startAppProcess } from '../helpers/app-process.js';
import { useBrowser } from '../helpers/browser.js';
import { startFakeProviders, type FakeProviders, type FakeUser } from '../helpers/fake-oauth/index.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { CookieJar, exchange, fromProviderToApp, requestLink, signIn, visit } from '../helpers/oauth-browser.js';
import { useRunningApp } from '../helpers/running-app.js';
import { countRows } from '../helpers/sqlite-file.js';

const PASSWORD = 'correct horse battery staple';

let fixture: PreparedFixture;
let fake: FakeProviders;
const browser = useBrowser();
beforeAll(async () => {
  fake = await startFakeProviders();
  fixture = await sharedFixture('full');
});
afterAll(async () => {
  await fake?.close();
});
// The app serves its own pages (APP_URL is the app, as with the built-in pages), so the browser
// tests and the HTTP ones meet the same front end.
const running = useRunningApp({
  fixture: () => fixture,
  databaseUrl: () => copyOfDevDatabase(fixture, 'oauth-csrf'),
  env: () => ({ ...fake.env('github'), ...fake.env('google') }),
  appUrlIsSelf: true,
});
beforeEach(() => fake.reset());
/** The app as browsers see it: API_URL and APP_URL alike. */
const appUrl = (): string => running.env().APP_URL!;
const flow = (options: Omit<Parameters<typeof signIn>[0], 'appUrl' | 'frontEndUrl'>) => signIn({ appUrl: appUrl(), frontEndUrl: appUrl(), ...options });

let counter = 0;
function person(fields: Partial<FakeUser> = {}): FakeUser {
  counter += 1;
  return { id: `${Date.now()}${counter}`, email: uniqueEmail('csrf-github'), emailVerified: true, name: `GitHub person ${counter}`, ...fields };
}
const account = (): Promise<Account> => register(running, { email: uniqueEmail('csrf'), password: PASSWORD });

const count = (sql: string, ...params: unknown[]): number => countRows(running.databaseUrl, sql, ...params);
const identitiesOf = (userId: string) => count('SELECT count(*) AS n FROM Account WHERE userId = ?', userId);
const identityCount = (providerAccountId: string) => count('SELECT count(*) AS n FROM Account WHERE providerAccountId = ?', providerAccountId);

/** A PKCE pair as a front end on another site makes it: a random verifier and its S256 challenge. */
function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

// Browser helpers, as in pages.test.ts.
const tokenOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('accessToken'));
async function open(path: string) {
  const tab = await browser.open();
  tab.page.setDefaultTimeout(10_000);
  await tab.page.goto(`${appUrl()}${path}`);
  return tab;
}

describe('finding 1 (medium): linking CSRF, a link URL that works in any browser and at any provider', () => {
  // Before: the URL /link answered held a ticket that was all the start needed. The victim's
  // browser followed it, signed in at GitHub as the victim, and the callback attached the victim's
  // GitHub identity to the attacker's account.
  it('a link URL opened in another browser (without the cookie its /link answer set) ends in invalid_state and links nothing', async () => {
    const attacker = await account();
    const link = await requestLink(appUrl(), 'github', attacker.token, new CookieJar());
    expect(link.status).toBe(200);
    const victim = person();
    fake.nextUser('github', victim);
    const landing = await flow({ provider: 'github', startUrl: link.body.url, jar: new CookieJar() });
    expect(landing.error).toBe('invalid_state');
    expect(landing.code).toBeUndefined();
    expect(identitiesOf(attacker.userId)).toBe(0);
    expect(identityCount(victim.id)).toBe(0);
  });

  // Before: the ticket was not tied to a provider; GitHub's link URL with /api/auth/google started
  // a Google link.
  it("a link ticket taken to another provider's start ends in invalid_state, even in the browser that asked for it", async () => {
    const owner = await account();
    const jar = new CookieJar();
    const link = await requestLink(appUrl(), 'github', owner.token, jar);
    const ticket = new URL(link.body.url).searchParams.get('link')!;
    const landing = await flow({ provider: 'google', startUrl: `${appUrl()}/api/auth/google?${new URLSearchParams({ link: ticket })}`, jar });
    expect(landing.error).toBe('invalid_state');
    expect(identitiesOf(owner.userId)).toBe(0);
  });

  it('the browser that asked for the link URL still links with it', async () => {
    const owner = await account();
    const jar = new CookieJar();
    const link = await requestLink(appUrl(), 'github', owner.token, jar);
    const them = person();
    fake.nextUser('github', them);
    const landing = await flow({ provider: 'github', startUrl: link.body.url, jar });
    expect(landing.error, landing.url.href).toBeUndefined();
    expect((await exchange(appUrl(), landing.code!, jar)).body.user.id).toBe(owner.userId);
    expect(identityCount(them.id)).toBe(1);
  });

  // Before: the victim's Chromium went to GitHub and back, and the attacker's account had the
  // victim's GitHub identity (every later "Sign in with GitHub" by the victim landed there).
  it("in Chromium: the victim's browser opens the attacker's link URL and ends signed out, with nothing linked", async () => {
    const attacker = await account();
    const link = await requestLink(appUrl(), 'github', attacker.token, new CookieJar(), { returnTo: '/account' });
    const victim = person();
    fake.nextUser('github', victim);
    const tab = await browser.open();
    tab.page.setDefaultTimeout(10_000);
    await tab.page.goto(link.body.url);
    await tab.page.waitForURL(`${appUrl()}/auth/callback`);
    await tab.page.getByText('This sign-in expired or was started in another browser.').waitFor();
    expect(await tokenOf(tab.page)).toBeNull();
    expect(identitiesOf(attacker.userId)).toBe(0);
    expect(identityCount(victim.id)).toBe(0);
    expect(tab.errors).toEqual([]);
  });
});

describe('finding 2: login CSRF through the exchange code', () => {
  // Before: any client holding the code got the attacker's token response, so the attacker's
  // /auth/callback?code= URL signed the victim's browser in as the attacker.
  it("a code minted in the attacker's flow is refused in another browser (401 INVALID_TOKEN), and works only in the attacker's", async () => {
    const attacker = person();
    fake.nextUser('github', attacker);
    const landing = await flow({ provider: 'github' });
    expect(landing.code).toBeDefined();
    for (const victim of [new CookieJar(), undefined]) {
      const refused = await exchange(appUrl(), landing.code!, victim);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('INVALID_TOKEN');
    }
    const own = await exchange(appUrl(), landing.code!, landing.jar);
    expect(own.status).toBe(200);
    expect(own.body.user.email).toBe(attacker.email);
  });

  // Before: the code was exchanged with { code } alone; a verifier was not asked for.
  it('a flow started with ?code_challenge= is exchanged only with its verifier: the right one 200, a wrong or missing one 401', async () => {
    const { verifier, challenge } = pkcePair();
    const user = person();
    fake.nextUser('github', user);
    const landing = await flow({ provider: 'github', query: { code_challenge: challenge } });
    expect(landing.code).toBeDefined();
    for (const wrong of [undefined, pkcePair().verifier]) {
      const refused = await exchange(appUrl(), landing.code!, landing.jar, wrong);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('INVALID_TOKEN');
    }
    const exchanged = await exchange(appUrl(), landing.code!, undefined, verifier);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.user.email).toBe(user.email);
  });

  // Before: the link attached the identity at the callback, in whichever browser got there.
  it('a link made with a code challenge attaches the identity only at the exchange with the verifier', async () => {
    const owner = await account();
    const { verifier, challenge } = pkcePair();
    const link = await requestLink(appUrl(), 'github', owner.token, new CookieJar(), { codeChallenge: challenge, returnTo: '/account' });
    expect(link.status).toBe(200);
    const them = person();
    fake.nextUser('github', them);
    // A front end on another site: no cookie reaches the API from it, the URL alone starts the link.
    const landing = await flow({ provider: 'github', startUrl: link.body.url, jar: new CookieJar() });
    expect(landing.error, landing.url.href).toBeUndefined();
    expect(landing.returnTo).toBe('/account');
    expect(identityCount(them.id)).toBe(0);
    const wrong = await exchange(appUrl(), landing.code!, landing.jar, pkcePair().verifier);
    expect(wrong.status).toBe(401);
    expect(identityCount(them.id)).toBe(0);
    const exchanged = await exchange(appUrl(), landing.code!, undefined, verifier);
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body.user.id).toBe(owner.userId);
    expect(identitiesOf(owner.userId)).toBe(1);
    expect(identityCount(them.id)).toBe(1);
    // The ticket of a challenge link works only with its challenge: without it the start refuses.
    const again = await requestLink(appUrl(), 'github', owner.token, new CookieJar(), { codeChallenge: challenge });
    const url = new URL(again.body.url);
    url.searchParams.delete('code_challenge');
    expect((await flow({ provider: 'github', startUrl: url.href, jar: new CookieJar() })).error).toBe('invalid_state');
  });

  // Before: the page posted the attacker's code and stored the attacker's token: the victim's
  // browser was signed in to the attacker's account, ready to type secrets into it.
  it("in Chromium: the victim's browser opens the attacker's /auth/callback?code= and ends signed out", async () => {
    const attacker = person();
    fake.nextUser('github', attacker);
    const landing = await flow({ provider: 'github' });
    expect(landing.code).toBeDefined();
    const tab = await open(`/auth/callback?${new URLSearchParams({ code: landing.code!, returnTo: '/account' })}`);
    await tab.page.getByRole('heading', { level: 1, name: 'Sign-in failed' }).waitFor();
    expect(await tokenOf(tab.page)).toBeNull();
    expect(tab.page.url()).toBe(`${appUrl()}/auth/callback`);
    // The one error is the refused exchange the page reports.
    expect(tab.errors).toEqual([expect.stringContaining('status of 401')]);
  });

  it("in Chromium: the built-in pages' own GitHub sign-in still exchanges its code (the cookie is same-site)", async () => {
    const user = person();
    fake.nextUser('github', user);
    const tab = await open('/');
    await tab.page.getByRole('link', { name: 'Continue with GitHub' }).click();
    await tab.page.waitForURL(`${appUrl()}/account`);
    const token = await tokenOf(tab.page);
    expect((await call(appUrl(), '/api/auth/me', { token: token! })).body.user.email).toBe(user.email);
    expect(tab.errors).toEqual([]);
  });
});

describe('finding 3: link flows survive the revocation of all tokens', () => {
  // Before: the start kept the linking user in the flow cookie only; a password change or
  // logout-all revoked tokens and one-time tokens, but the flow already under way still linked
  // (a stolen fresh token could start a link, and the owner's password change did not stop it).
  it.each([
    ['a password change', (owner: Account) => call(appUrl(), '/api/auth/password/change', { token: owner.token, json: { currentPassword: PASSWORD, newPassword: `${PASSWORD} changed` } })],
    ['logout everywhere', (owner: Account) => call(appUrl(), '/api/auth/logout-all', { method: 'POST', token: owner.token })],
  ])('a link flow started before %s ends in invalid_state and links nothing', async (_event, revoke) => {
    const owner = await account();
    const jar = new CookieJar();
    const link = await requestLink(appUrl(), 'github', owner.token, jar);
    const start = await visit(jar, link.body.url);
    expect(start.status).toBe(302);
    expect(start.location!.startsWith(fake.url)).toBe(true);
    const revoked = await revoke(owner);
    expect(revoked.status).toBeLessThan(300);
    const them = person();
    fake.nextUser('github', them);
    const landing = await fromProviderToApp(jar, start.location!, appUrl(), appUrl());
    expect(landing.error).toBe('invalid_state');
    expect(identitiesOf(owner.userId)).toBe(0);
    expect(identityCount(them.id)).toBe(0);
  });

  it('a link flow with a code challenge, started before logout everywhere, gives no code', async () => {
    const owner = await account();
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    const link = await requestLink(appUrl(), 'github', owner.token, jar, { codeChallenge: challenge });
    const start = await visit(jar, link.body.url);
    expect((await call(appUrl(), '/api/auth/logout-all', { method: 'POST', token: owner.token })).status).toBe(204);
    fake.nextUser('github', person());
    expect((await fromProviderToApp(jar, start.location!, appUrl(), appUrl())).error).toBe('invalid_state');
    expect(identitiesOf(owner.userId)).toBe(0);
  });
});

describe('finding 9a: the callback page and ?error=__proto__', () => {
  // Before: FAILURES[error] found Object.prototype for __proto__ and the page said "[object Object]".
  it.each(['__proto__', 'constructor', 'toString', 'not_a_code'])('?error=%s shows the generic message', async (error) => {
    const tab = await open(`/auth/callback?${new URLSearchParams({ error })}`);
    const alert = tab.page.locator('#page-alert');
    await alert.filter({ hasText: /\w/ }).waitFor();
    expect(await alert.textContent()).toBe('The sign-in did not complete. Start again from the sign-in page.');
    expect(tab.errors).toEqual([]);
  });
});

/** Each Set-Cookie of a response: its name and its attributes (lowercased names, without Max-Age and Expires). */
function cookiesOf(response: Response): { name: string; attributes: string[] }[] {
  return response.headers.getSetCookie().map((line) => {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    return { name: pair!.split('=')[0]!, attributes: attributes.filter((attribute) => !/^(max-age|expires)=/i.test(attribute)).map((attribute) => attribute.toLowerCase()).sort() };
  });
}
/** What a browser requires of a __Host- cookie, plus httpOnly and SameSite=Lax. */
const HOST_COOKIE = ['httponly', 'path=/', 'samesite=lax', 'secure'];

describe('finding 11b: the OAuth cookies over https', () => {
  // Before: the flow cookie was gatekit_oauth (Path=/api/auth) over https too, so a neighbouring
  // subdomain could plant its own flow in a visitor's browser (cookie tossing).
  it('take the __Host- prefix (Secure, Path=/, no Domain) and still carry the flow to the exchange', async () => {
    const port = await freePort();
    const local = `http://127.0.0.1:${port}`;
    const app = await startAppProcess(fixture.dir, {
      ...running.env({ API_URL: 'https://api.gatekit.test', PORT: String(port) }),
      // The provider comes back to the local process; the cookies are named for https all the same.
      GITHUB_CALLBACK_URL: `${local}/api/auth/github/callback`,
    });
    try {
      const owner = await account();
      const jar = new CookieJar();
      const linkAnswer = await fetch(`${local}/api/auth/github/link`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(linkAnswer.status).toBe(200);
      expect(cookiesOf(linkAnswer)).toEqual([{ name: '__Host-gatekit_oauth_link', attributes: HOST_COOKIE }]);
      fake.nextUser('github', person());
      const start = await visit(jar, `${local}/api/auth/github`);
      expect(start.status).toBe(302);
      expect(cookiesOf(await fetch(`${local}/api/auth/github`, { redirect: 'manual' }))).toEqual([{ name: '__Host-gatekit_oauth', attributes: HOST_COOKIE }]);
      const landing = await fromProviderToApp(jar, start.location!, local, appUrl());
      expect(landing.code).toBeDefined();
      expect(jar.header(local)).toMatch(/__Host-gatekit_oauth_exchange=/);
      expect((await exchange(local, landing.code!, jar)).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
