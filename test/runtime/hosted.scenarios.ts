/**
 * The hosted services of CONTRACT B.7 (Clerk, Auth0, Supabase, Auth.js) against a generated app
 * running as its own process, pointed at the local stand-ins of test/helpers/fake-hosted (Clerk,
 * Auth0, Supabase) and at a real SMTP catcher (Auth.js's email sign-in). Shared by the SQLite
 * suite (hosted.test.ts, which adds the attacks) and the PostgreSQL one.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail, type Account } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { startFakeHosted, type FakeHosted, type TokenOverrides } from '../helpers/fake-hosted/index.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { CookieJar, visit } from '../helpers/oauth-browser.js';
import { TEST_APP_URL, useRunningApp, type RunningApp } from '../helpers/running-app.js';
import { nextCode, type TotpDevice } from '../helpers/totp-codes.js';

export const AUTH_SECRET = 'runtime-test-auth-js-secret-0123456789abcdef';
export const PASSWORD = 'correct horse battery staple';
export const MFA_ANSWER = { mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] };

export type Reply = Awaited<ReturnType<typeof call>>;

/** One of the three services whose front-end SDK hands out a Bearer token. */
export interface TokenServiceCase {
  id: 'clerk' | 'auth0' | 'supabase';
  name: string;
  /** A user at the service; `verified` is what the service's trustworthy source says of the address. */
  addUser(fake: FakeHosted, email: string, verified: boolean): string;
  token(fake: FakeHosted, subject: string, overrides?: TokenOverrides): Promise<string>;
}

export const TOKEN_SERVICES: TokenServiceCase[] = [
  {
    id: 'clerk',
    name: 'Clerk',
    addUser: (fake, email, verified) => fake.clerk.addUser({ email, primaryEmailStatus: verified ? 'verified' : 'unverified' }),
    token: (fake, subject, overrides) => fake.clerk.sessionToken(subject, overrides),
  },
  {
    id: 'auth0',
    name: 'Auth0',
    addUser: (fake, email, verified) => fake.auth0.addUser({ email, emailVerified: verified }),
    token: (fake, subject, overrides) => fake.auth0.accessToken(subject, overrides),
  },
  {
    id: 'supabase',
    name: 'Supabase',
    // An unconfirmed user who set user_metadata.email_verified themselves (PUT /auth/v1/user).
    addUser: (fake, email, verified) => fake.supabase.addUser({ email, emailVerified: verified, ...(verified ? {} : { userMetadata: { email_verified: true } }) }),
    token: (fake, subject, overrides) => fake.supabase.accessToken(subject, overrides),
  },
];

export interface HostedApp {
  running: RunningApp;
  fake(): FakeHosted;
  /** Every token, cookie and link the suite handled: none may reach the logs. */
  secrets: string[];
  api(path: string, init?: Parameters<typeof call>[2]): Promise<Reply>;
  exchange(service: TokenServiceCase['id'], token: string): Promise<Reply>;
  /** A fresh service user with a fresh token. */
  serviceToken(service: TokenServiceCase, email: string, verified: boolean, overrides?: TokenOverrides): Promise<{ subject: string; token: string }>;
}

/**
 * Starts the stand-ins, then the app with every service pointed at them (Supabase with its legacy
 * secret too); `env` adds to its environment (another stand-in's variables).
 */
export function useHostedApp(setup: { fixture: () => PreparedFixture; databaseUrl: () => string; env?: () => Record<string, string> }): HostedApp {
  let fake: FakeHosted | undefined;
  const secrets: string[] = [];
  beforeAll(async () => {
    fake = await startFakeHosted();
  });
  afterAll(async () => {
    await fake?.close();
  });
  const running = useRunningApp({
    ...setup,
    env: () => ({ ...fake!.clerk.env(), ...fake!.auth0.env(), ...fake!.supabase.env({ legacySecret: true }), AUTH_SECRET, ...setup.env?.() }),
  });
  const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);
  return {
    running,
    fake: () => fake!,
    secrets,
    api,
    exchange: (service, token) => api(`/api/auth/${service}/exchange`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }),
    async serviceToken(service, email, verified, overrides) {
      const subject = service.addUser(fake!, email, verified);
      const token = await service.token(fake!, subject, overrides);
      secrets.push(token);
      return { subject, token };
    },
  };
}

/** Turns two-factor on for a signed-in account with a verified address. */
export async function enableTwoFactor(hosted: HostedApp, token: string): Promise<TotpDevice> {
  const setup = await hosted.api('/api/auth/2fa/setup', { method: 'POST', token });
  expect(setup.status).toBe(200);
  const device = { secret: setup.body.secret as string, lastStep: -1 };
  hosted.secrets.push(device.secret);
  expect((await hosted.api('/api/auth/2fa/enable', { token, json: { code: await nextCode(device) } })).status).toBe(200);
  return device;
}

/** The app's answer for a token response: it opens /api/auth/me as that user. */
export async function expectSignedIn(hosted: HostedApp, reply: Reply, user: Record<string, unknown>): Promise<void> {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.headers.get('cache-control')).toContain('no-store');
  expect(reply.body).toMatchObject({ tokenType: 'Bearer', token: expect.any(String), user });
  hosted.secrets.push(reply.body.token);
  const me = await hosted.api('/api/auth/me', { token: reply.body.token });
  expect(me.body.user.id).toBe(reply.body.user.id);
}

export function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.error.code).toBe(code);
}

/** A squatter's account: someone else's address, registered with a password, never verified. */
export const squat = (hosted: HostedApp): Promise<Account> => register(hosted.running, { password: PASSWORD });

/** Asserts that a squatter's account was taken over by `reply`'s sign-in (CONTRACT B.2). */
export async function expectTakenOver(hosted: HostedApp, reply: Reply, squatter: Account): Promise<void> {
  await expectSignedIn(hosted, reply, { id: squatter.userId, email: squatter.email, emailVerified: true });
  expect((await hosted.api('/api/auth/me', { token: squatter.token })).status).toBe(401);
  expect((await hosted.api('/api/auth/login', { json: { email: squatter.email, password: PASSWORD } })).status).toBe(401);
}

/** Nothing was linked to the account: its identities list is empty. */
export async function expectNoIdentities(hosted: HostedApp, account: Account): Promise<void> {
  const identities = await hosted.api('/api/auth/identities', { token: account.token });
  expect(identities.body).toEqual({ identities: [] });
}

// Auth.js, driven as a browser does: a cookie jar, the real mail, the link.

export interface AuthjsBrowser {
  jar: CookieJar;
  /** The link of the sign-in mail. */
  link: string;
}

/** POST with a Host header of our choosing (fetch always sends the real one). */
function postFormWithHost(url: string, form: Record<string, string>, headers: Record<string, string>): Promise<number> {
  const target = new URL(url);
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Email sign-in through Auth.js up to the mail: its CSRF token (and cookie), then the sign-in form,
 * optionally with forged headers (a Host of the attacker's choosing). Returns the mailed link.
 */
export async function startAuthjsSignIn(hosted: HostedApp, email: string, options: { callbackUrl?: string; headers?: Record<string, string> } = {}): Promise<AuthjsBrowser> {
  const url = hosted.running.app.url;
  const jar = new CookieJar();
  const csrf = await visit(jar, `${url}/api/auth/authjs/csrf`);
  expect(csrf.status).toBe(200);
  const form = { email, csrfToken: JSON.parse(csrf.body).csrfToken as string, callbackUrl: options.callbackUrl ?? `${TEST_APP_URL}/welcome` };
  const since = hosted.running.mail.messages.length;
  const signInUrl = `${url}/api/auth/authjs/signin/email`;
  const status = options.headers
    ? await postFormWithHost(signInUrl, form, { cookie: jar.header(url) ?? '', ...options.headers })
    : (await visit(jar, signInUrl, { form })).status;
  expect(status).toBe(302);
  const mail = await hosted.running.mail.waitForMail(email, { since, subject: /sign-in link/i });
  const link = linkFrom(mail, `${url}/api/auth/authjs/callback/email?`);
  hosted.secrets.push(new URL(link).searchParams.get('token')!);
  return { jar, link };
}

/** Opens the mailed link in the same browser: Auth.js sets its session cookie and redirects. */
export async function openAuthjsLink(hosted: HostedApp, browser: AuthjsBrowser): Promise<string | undefined> {
  const landed = await visit(browser.jar, browser.link);
  expect(landed.status, landed.body).toBe(302);
  const cookies = browser.jar.header(hosted.running.app.url) ?? '';
  expect(cookies).toContain('authjs.session-token=');
  hosted.secrets.push(...cookies.split('; ').map((cookie) => cookie.slice(cookie.indexOf('=') + 1)));
  return landed.location;
}

/** POST /api/auth/authjs/exchange with the browser's cookies. */
export async function authjsExchange(hosted: HostedApp, jar: CookieJar): Promise<Reply> {
  const url = `${hosted.running.app.url}/api/auth/authjs/exchange`;
  const cookie = jar.header(url);
  return call(hosted.running.app.url, '/api/auth/authjs/exchange', { method: 'POST', headers: cookie ? { cookie } : {} });
}

/** The whole Auth.js email sign-in, then the exchange. */
export async function authjsSignIn(hosted: HostedApp, email: string): Promise<{ reply: Reply; jar: CookieJar }> {
  const browser = await startAuthjsSignIn(hosted, email);
  await openAuthjsLink(hosted, browser);
  return { reply: await authjsExchange(hosted, browser.jar), jar: browser.jar };
}

/**
 * What every hosted service must do on any database: sign a verified user in (the same user for
 * the same subject), never link an unverified address, take a provisional account over with a
 * verified one, and end in completeLogin (two-factor gives the mfa answer).
 */
export function describeHostedBasics(hosted: HostedApp): void {
  for (const service of TOKEN_SERVICES) {
    describe(`${service.name}: the exchange`, () => {
      it('signs a user in whose address the service verified, and maps the same subject to the same user', async () => {
        const email = uniqueEmail(service.id);
        const { subject, token } = await hosted.serviceToken(service, email, true);
        const first = await hosted.exchange(service.id, token);
        await expectSignedIn(hosted, first, { email, emailVerified: true, twoFactorEnabled: false });
        const again = await hosted.exchange(service.id, await service.token(hosted.fake(), subject));
        await expectSignedIn(hosted, again, { id: first.body.user.id });
        const identities = await hosted.api('/api/auth/identities', { token: again.body.token });
        expect(identities.body.identities).toEqual([{ id: expect.any(String), provider: service.id, email, createdAt: expect.any(String) }]);
      });

      it('never links an address the service does not report verified to an existing account: 409 ACCOUNT_EXISTS, nothing linked', async () => {
        const owner = await register(hosted.running, { password: PASSWORD, verified: true });
        const { token } = await hosted.serviceToken(service, owner.email, false);
        expectError(await hosted.exchange(service.id, token), 409, 'ACCOUNT_EXISTS');
        await expectNoIdentities(hosted, owner);
        expect((await hosted.api('/api/auth/me', { token: owner.token })).status).toBe(200);
      });

      it("a verified address takes a provisional account over (CONTRACT B.2): same id, the squatter's token and password revoked", async () => {
        const squatter = await squat(hosted);
        const { token } = await hosted.serviceToken(service, squatter.email, true);
        await expectTakenOver(hosted, await hosted.exchange(service.id, token), squatter);
      });

      it('ends in completeLogin: a user with two-factor on gets the mfa answer', async () => {
        const { subject, token } = await hosted.serviceToken(service, uniqueEmail(service.id), true);
        const first = await hosted.exchange(service.id, token);
        expect(first.status).toBe(200);
        const device = await enableTwoFactor(hosted, first.body.token);
        const second = await hosted.exchange(service.id, await service.token(hosted.fake(), subject));
        expect(second.status).toBe(200);
        expect(second.body).toEqual(MFA_ANSWER);
        hosted.secrets.push(second.body.mfaToken);
        const verified = await hosted.api('/api/auth/2fa/verify', { json: { mfaToken: second.body.mfaToken, code: await nextCode(device) } });
        await expectSignedIn(hosted, verified, { id: first.body.user.id, twoFactorEnabled: true });
      });
    });
  }

  describe('Auth.js: email sign-in over HTTP, then the exchange', () => {
    it('mails a link to API_URL; the link sets the session cookie and lands on the front end; the exchange signs the user in', async () => {
      const email = uniqueEmail('authjs');
      const browser = await startAuthjsSignIn(hosted, email);
      expect(await openAuthjsLink(hosted, browser)).toBe(`${TEST_APP_URL}/welcome`);
      const first = await authjsExchange(hosted, browser.jar);
      await expectSignedIn(hosted, first, { email, emailVerified: true });
      const again = await authjsSignIn(hosted, email);
      await expectSignedIn(hosted, again.reply, { id: first.body.user.id });
    });

    it("a verified address takes a provisional account over (CONTRACT B.2): same id, the squatter's token and password revoked", async () => {
      const squatter = await squat(hosted);
      await expectTakenOver(hosted, (await authjsSignIn(hosted, squatter.email)).reply, squatter);
    });

    it('ends in completeLogin: a user with two-factor on gets the mfa answer', async () => {
      const email = uniqueEmail('authjs');
      const first = await authjsSignIn(hosted, email);
      expect(first.reply.status).toBe(200);
      await enableTwoFactor(hosted, first.reply.body.token);
      const second = await authjsExchange(hosted, first.jar);
      expect(second.body).toEqual(MFA_ANSWER);
      hosted.secrets.push(second.body.mfaToken);
    });
  });
}
