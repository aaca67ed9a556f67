/**
 * Issue 33 (CONTRACT B.15): account deletion and export, and the admin module, against the full
 * fixture (every sign-in method, orgs, admin) running as its own process, with a real SMTP server,
 * the fake OAuth providers and the local stand-ins of the hosted services.
 *
 * - the scenarios shared with PostgreSQL (admin.scenarios.ts): every /api/admin route for an admin, a
 *   user and an impersonation session, bans, the last admin, deletion and the export;
 * - bans by every way in this app offers;
 * - each thing an impersonation session must not do, one test each;
 * - the attack pass of the issue.
 *
 * Each attack test says what it stops. They were run against this fixture with the fix taken out
 * of the built app (the guard's `noImpersonation` check, the `sessionChecks` list), and failed there.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail, type Account } from '../helpers/accounts.js';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-oauth/index.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { exchange, signIn } from '../helpers/oauth-browser.js';
import { TEST_APP_URL } from '../helpers/running-app.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { openSqlite, sqliteDate } from '../helpers/sqlite-file.js';
import { nextCode, type TotpDevice } from '../helpers/totp-codes.js';
import { createAdmin, describeAdminScenarios, expectError, PASSWORD } from './admin.scenarios.js';
import { authjsSignIn, TOKEN_SERVICES, useHostedApp } from './hosted.scenarios.js';

let fixture: PreparedFixture;
let oauth: FakeProviders;
beforeAll(async () => {
  oauth = await startFakeProviders();
  fixture = await sharedFixture('full');
});
const hosted = useHostedApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'security-admin'), env: () => oauth.envAll() });
const running = hosted.running;
const api = hosted.api;
const setup = { fixture: () => fixture, running };
const me = (token: string) => api('/api/auth/me', { token });
const login = (email: string, password = PASSWORD) => api('/api/auth/login', { json: { email, password } });

describe('the operators API and account lifecycle (shared with PostgreSQL)', () => {
  describeAdminScenarios(setup);
});

let adminAccount: Account | undefined;
/** One admin for the tests below (made with npm run admin, once). */
async function admin(): Promise<Account> {
  adminAccount ??= await createAdmin(setup);
  // Other tests may have signed it out or taken the role: a fresh one then.
  if ((await api('/api/admin/users?limit=1', { token: adminAccount.token })).status !== 200) adminAccount = await createAdmin(setup);
  return adminAccount;
}

async function ban(target: Account, body: Record<string, unknown> = { reason: 'abuse' }) {
  const reply = await api(`/api/admin/users/${target.userId}/ban`, { token: (await admin()).token, json: body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.user;
}

async function impersonate(target: Account): Promise<string> {
  const reply = await api(`/api/admin/users/${target.userId}/impersonate`, { token: (await admin()).token, json: { reason: 'support ticket' } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  hosted.secrets.push(reply.body.token);
  return reply.body.token;
}

async function mailedLink(email: string, send: () => Promise<unknown>, prefix: string): Promise<string> {
  const since = running.mail.messages.length;
  await send();
  const mail = await running.mail.waitForMail(email, { since });
  return new URL(linkFrom(mail, `${TEST_APP_URL}${prefix}`)).searchParams.get('token')!;
}

async function enableTwoFactor(token: string): Promise<TotpDevice> {
  const setupReply = await api('/api/auth/2fa/setup', { method: 'POST', token });
  expect(setupReply.status, JSON.stringify(setupReply.body)).toBe(200);
  const device = { secret: setupReply.body.secret as string, lastStep: -1 };
  expect((await api('/api/auth/2fa/enable', { token, json: { code: await nextCode(device) } })).status).toBe(200);
  return device;
}

async function addPasskey(account: Account, authenticator: SoftAuthenticator): Promise<string> {
  const options = await api('/api/auth/passkey/register/options', { token: account.token, json: {} });
  expect(options.status, JSON.stringify(options.body)).toBe(200);
  const verified = await api('/api/auth/passkey/register/verify', { token: account.token, json: { response: authenticator.create(options.body).response } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(201);
  return verified.body.passkey.id;
}

function expectBanned(reply: Awaited<ReturnType<typeof api>>, label: string): void {
  expect(reply.status, `${label}: ${JSON.stringify(reply.body)}`).toBe(403);
  expect(reply.body.error.code, label).toBe('ACCOUNT_BANNED');
  expect(reply.body.error.message, label).not.toContain('abuse');
}

// Before: nothing refused a banned user (there were no bans), and a ban that only deleted sessions
// would let the next sign-in of any method in.
describe('a banned user is refused every way in, with 403 ACCOUNT_BANNED', () => {
  it('a password', async () => {
    const target = await register(running, { password: PASSWORD });
    await ban(target);
    expectBanned(await login(target.email), 'password');
    expectError(await login(target.email, 'a wrong password entirely'), 401, 'INVALID_CREDENTIALS');
  });

  it('a password, with two-factor on: refused before the second factor is asked', async () => {
    const target = await register(running, { password: PASSWORD, verified: true });
    await enableTwoFactor(target.token);
    await ban(target);
    expectBanned(await login(target.email), 'password with 2FA');
  });

  it('a magic link', async () => {
    const target = await register(running, { password: PASSWORD, verified: true });
    await ban(target);
    const token = await mailedLink(target.email, () => api('/api/auth/magic-link/send', { json: { email: target.email } }), '/magic-link?token=');
    expectBanned(await api('/api/auth/magic-link/verify', { json: { token } }), 'magic link');
  });

  it('a passkey', async () => {
    const target = await register(running, { password: PASSWORD, verified: true });
    const authenticator = new SoftAuthenticator(TEST_APP_URL);
    await addPasskey(target, authenticator);
    await ban(target);
    const options = (await api('/api/auth/passkey/login/options', { json: {} })).body;
    expectBanned(await api('/api/auth/passkey/login/verify', { json: { response: authenticator.get(options) } }), 'passkey');
  });

  it('an OAuth provider (GitHub, through the fake)', async () => {
    const person = { id: `${Date.now()}`, email: uniqueEmail('github'), emailVerified: true, name: 'Octo Cat' };
    oauth.nextUser('github', person);
    const first = await signIn({ appUrl: running.app.url, frontEndUrl: TEST_APP_URL, provider: 'github' });
    const signedIn = await exchange(running.app.url, first.code!, first.jar);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    await ban({ email: person.email, token: signedIn.body.token, userId: signedIn.body.user.id });
    oauth.nextUser('github', { ...person, firstLogin: false });
    const again = await signIn({ appUrl: running.app.url, frontEndUrl: TEST_APP_URL, provider: 'github' });
    expectBanned(await exchange(running.app.url, again.code!, again.jar), 'GitHub');
  });

  for (const service of TOKEN_SERVICES) {
    it(`a hosted exchange (${service.name})`, async () => {
      const email = uniqueEmail(service.id);
      const { subject, token } = await hosted.serviceToken(service, email, true);
      const first = await hosted.exchange(service.id, token);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      await ban({ email, token: first.body.token, userId: first.body.user.id });
      // The same person at the service, with a new token.
      const again = await service.token(hosted.fake(), subject);
      hosted.secrets.push(again);
      expectBanned(await hosted.exchange(service.id, again), service.name);
    });
  }

  it('a hosted exchange (Auth.js, its email sign-in)', async () => {
    const email = uniqueEmail('authjs');
    const { reply } = await authjsSignIn(hosted, email);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    await ban({ email, token: reply.body.token, userId: reply.body.user.id });
    expectBanned((await authjsSignIn(hosted, email)).reply, 'Auth.js');
  });

  it('a refresh: the ban ended the session, so its refresh token is refused (401 INVALID_TOKEN) and signing in says why', async () => {
    const target = await register(running, { password: PASSWORD });
    const signedIn = await login(target.email);
    await ban(target);
    expectError(await api('/api/auth/refresh', { json: { refreshToken: signedIn.body.refreshToken } }), 401, 'INVALID_TOKEN');
    expectError(await me(signedIn.body.token), 401, 'UNAUTHENTICATED');
    expectBanned(await login(target.email), 'after the refresh');
  });

  it('a timed ban says when it ends, and ends by itself then', async () => {
    const target = await register(running, { password: PASSWORD });
    const banned = await ban(target, { reason: 'abuse', expiresInHours: 3 });
    const refused = await login(target.email);
    expectBanned(refused, 'timed');
    expect(refused.body.error.message).toContain(banned.banExpiresAt);
    const db = openSqlite(running.databaseUrl);
    try {
      db.prepare('UPDATE UserBan SET expiresAt = ? WHERE userId = ?').run(sqliteDate(Date.now() - 1000), target.userId);
    } finally {
      db.close();
    }
    expect((await login(target.email)).status).toBe(200);
    const listed = await api(`/api/admin/users/${target.userId}`, { token: (await admin()).token });
    expect(listed.body.user).toMatchObject({ banned: false, banExpiresAt: null });
  });
});

// Before: an impersonation session could do everything its user can.
describe('an impersonation session is refused (403 IMPERSONATION_FORBIDDEN) every security change', () => {
  interface Target extends Account {
    impersonation: string;
    passkeyId: string;
    identityId: string;
    otherSession: string;
  }
  /**
   * A new verified user with a password, a passkey, a linked GitHub identity and a second session,
   * and an impersonation of them: each test starts from its own, so each refusal is checked alone.
   */
  async function impersonated(): Promise<Target> {
    const account = await register(running, { password: PASSWORD, verified: true });
    const passkeyId = await addPasskey(account, new SoftAuthenticator(TEST_APP_URL));
    const other = await login(account.email);
    const identity = await linkGitHub(account);
    const impersonation = await impersonate(account);
    const sessions = await api('/api/auth/sessions', { token: other.body.token });
    const otherSession = sessions.body.sessions.find((session: { current: boolean }) => session.current).id;
    return { ...account, impersonation, passkeyId, identityId: identity, otherSession };
  }

  async function linkGitHub(account: Account): Promise<string> {
    const { CookieJar, requestLink, visit, fromProviderToApp } = await import('../helpers/oauth-browser.js');
    const jar = new CookieJar();
    const link = await requestLink(running.app.url, 'github', account.token, jar);
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    oauth.nextUser('github', { id: `${Date.now()}7`, email: uniqueEmail('linked'), emailVerified: true, name: 'Linked' });
    const start = await visit(jar, link.body.url);
    const landing = await fromProviderToApp(jar, start.location!, running.app.url, TEST_APP_URL);
    expect(landing.error, landing.url.href).toBeUndefined();
    const identities = await api('/api/auth/identities', { token: account.token });
    return identities.body.identities[0].id;
  }

  const forbidden: [name: string, request: (t: Target) => [method: string, path: string, json?: unknown]][] = [
    ['change the password', () => ['POST', '/api/auth/password/change', { currentPassword: PASSWORD, newPassword: 'an admin chose this one' }]],
    ['verify the email address', () => ['POST', '/api/auth/email/verify', { token: 'x'.repeat(43) }]],
    ['set up two-factor', () => ['POST', '/api/auth/2fa/setup']],
    ['turn two-factor on', () => ['POST', '/api/auth/2fa/enable', { code: '123456' }]],
    ['turn two-factor off', () => ['POST', '/api/auth/2fa/disable', { code: '123456' }]],
    ['make new recovery codes', () => ['POST', '/api/auth/2fa/recovery-codes', { code: '123456' }]],
    ['start adding a passkey', () => ['POST', '/api/auth/passkey/register/options', {}]],
    ['add a passkey', () => ['POST', '/api/auth/passkey/register/verify', { response: {} }]],
    ['rename a passkey', (t) => ['PATCH', `/api/auth/passkeys/${t.passkeyId}`, { name: 'renamed by an admin' }]],
    ['remove a passkey', (t) => ['DELETE', `/api/auth/passkeys/${t.passkeyId}`]],
    ['link an identity', () => ['POST', '/api/auth/github/link', {}]],
    ['unlink an identity', (t) => ['DELETE', `/api/auth/identities/${t.identityId}`]],
    ['end another session', (t) => ['DELETE', `/api/auth/sessions/${t.otherSession}`]],
    ['end every other session', () => ['POST', '/api/auth/sessions/revoke-others']],
    ['sign out everywhere', () => ['POST', '/api/auth/logout-all']],
    ['delete the account', (t) => ['DELETE', '/api/auth/account', { confirm: t.email }]],
    ['export the account', () => ['GET', '/api/auth/account/export']],
    ['reach /api/admin', () => ['GET', '/api/admin/users']],
    ['impersonate someone else (a chain)', (t) => ['POST', `/api/admin/users/${t.userId}/impersonate`, { reason: 'chain' }]],
  ];

  for (const [name, request] of forbidden) {
    it(`cannot ${name}`, async () => {
      const t = await impersonated();
      const [method, path, json] = request(t);
      expectError(await api(path, { method, json, token: t.impersonation }), 403, 'IMPERSONATION_FORBIDDEN');
      // Nothing changed: the user's password, passkey, identity and sessions are as they were.
      expect((await me(t.token)).status).toBe(200);
      expect((await me(t.impersonation)).status).toBe(200);
      const passkeys = await api('/api/auth/passkeys', { token: t.token });
      expect(passkeys.body.passkeys.map((passkey: { id: string; name: string }) => passkey.id)).toEqual([t.passkeyId]);
      expect((await api('/api/auth/identities', { token: t.token })).body.identities.map((identity: { id: string }) => identity.id)).toEqual([t.identityId]);
      expect((await api('/api/auth/me', { token: t.token })).body.user.twoFactorEnabled).toBe(false);
      const sessions = (await api('/api/auth/sessions', { token: t.token })).body.sessions.map((session: { id: string }) => session.id);
      expect(sessions).toContain(t.otherSession);
      expectError(await login(t.email, 'an admin chose this one'), 401, 'INVALID_CREDENTIALS');
    });
  }

  it('can read what the user sees, and shows who acts in /me and in the user\'s session list', async () => {
    const t = await impersonated();
    const seen = await me(t.impersonation);
    expect(seen.body).toEqual({ user: expect.objectContaining({ id: t.userId }), impersonatedBy: { id: (await admin()).userId, email: (await admin()).email } });
    expect((await api('/api/auth/passkeys', { token: t.impersonation })).status).toBe(200);
    const listed = await api('/api/auth/sessions', { token: t.token });
    expect(listed.body.sessions.find((session: { method: string }) => session.method === 'impersonation')).toMatchObject({ impersonatedBy: { email: (await admin()).email } });
  });
});

describe('the attack pass', () => {
  // Before: a body could carry role fields as Better Auth's create-user did (#9974).
  it('nobody becomes admin without the command: role fields in register, sign-in and organization bodies set nothing', async () => {
    const email = uniqueEmail('climber');
    const registered = await api('/api/auth/register', { json: { email, password: PASSWORD, role: 'admin', adminRole: { create: {} }, isAdmin: true } });
    expect(registered.status).toBe(201);
    expect(registered.body.user.role).toBeUndefined();
    const signedIn = await api('/api/auth/login', { json: { email, password: PASSWORD, role: 'admin' } });
    await api('/api/organizations', { token: signedIn.body.token, json: { name: 'Climbers', role: 'admin' } });
    await api('/api/auth/magic-link/send', { json: { email, role: 'admin' } });
    for (const token of [registered.body.token, signedIn.body.token]) expectError(await api('/api/admin/users', { token }), 403, 'FORBIDDEN');
    const climber = registered.body.user.id;
    expectError(await api(`/api/admin/users/${climber}/role`, { method: 'PUT', token: signedIn.body.token, json: { role: 'admin' } }), 403, 'FORBIDDEN');
    expect((await api(`/api/admin/users/${climber}`, { token: (await admin()).token })).body.user.role).toBe('user');
  });

  it("an admin's own bodies raise no one: role fields in ban, unban, impersonate and delete bodies are ignored", async () => {
    const target = await register(running, { password: PASSWORD });
    const token = (await admin()).token;
    await api(`/api/admin/users/${target.userId}/ban`, { token, json: { reason: 'abuse', role: 'admin', banned: false } });
    await api(`/api/admin/users/${target.userId}/unban`, { token, json: { role: 'admin' } });
    const impersonation = await api(`/api/admin/users/${target.userId}/impersonate`, { token, json: { reason: 'look', role: 'admin', impersonatedBy: null } });
    expect((await api(`/api/admin/users/${target.userId}`, { token })).body.user.role).toBe('user');
    expectError(await api('/api/admin/users', { token: impersonation.body.token }), 403, 'IMPERSONATION_FORBIDDEN');
  });

  // Before: Better Auth let an admin impersonate another admin and chain (#6448).
  it('an admin is never impersonated', async () => {
    const other = await createAdmin(setup);
    expectError(await api(`/api/admin/users/${other.userId}/impersonate`, { token: (await admin()).token, json: { reason: 'look' } }), 403, 'FORBIDDEN');
    const sessions = await api('/api/auth/sessions', { token: other.token });
    expect(sessions.body.sessions.map((session: { method: string }) => session.method)).toEqual(['password']);
  });

  it('an impersonation cannot be refreshed or extended: no refresh token, no cookie, a token that dies with it, and no new session from inside it', async () => {
    const target = await register(running, { password: PASSWORD });
    const started = await api(`/api/admin/users/${target.userId}/impersonate`, {
      token: (await admin()).token,
      json: { reason: 'look' },
      headers: { 'refresh-token-transport': 'cookie' },
    });
    expect(started.body.refreshToken).toBeUndefined();
    expect(started.headers.getSetCookie()).toEqual([]);
    expect(started.body.expiresIn).toBeLessThanOrEqual(60 * 60);
    const token = started.body.token;
    expectError(await api('/api/auth/refresh', { json: { refreshToken: token } }), 401, 'INVALID_TOKEN');
    expectError(await api('/api/auth/refresh', { method: 'POST', headers: { 'refresh-token-transport': 'cookie' } }), 401, 'INVALID_TOKEN');
    expectError(await api('/api/auth/password/change', { token, json: { currentPassword: PASSWORD, newPassword: 'a new one for longer' } }), 403, 'IMPERSONATION_FORBIDDEN');
    expectError(await api(`/api/admin/users/${target.userId}/impersonate`, { token, json: { reason: 'again' } }), 403, 'IMPERSONATION_FORBIDDEN');
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(60 * 60);
    expect(claims.act).toEqual({ sub: (await admin()).userId });
  });

  it('an impersonation session cannot act on another user', async () => {
    const target = await register(running, { password: PASSWORD });
    const bystander = await register(running, { password: PASSWORD });
    const impersonation = await impersonate(target);
    const bystanderSession = (await api('/api/auth/sessions', { token: bystander.token })).body.sessions[0].id;
    expectError(await api(`/api/auth/sessions/${bystanderSession}`, { method: 'DELETE', token: impersonation }), 403, 'IMPERSONATION_FORBIDDEN');
    expectError(await api(`/api/admin/users/${bystander.userId}/ban`, { token: impersonation, json: { reason: 'x' } }), 403, 'IMPERSONATION_FORBIDDEN');
    expectError(await api(`/api/admin/users/${bystander.userId}/sessions`, { method: 'DELETE', token: impersonation }), 403, 'IMPERSONATION_FORBIDDEN');
    expect((await me(bystander.token)).status).toBe(200);
  });

  it("nobody deletes another user's account", async () => {
    const victim = await register(running, { password: PASSWORD });
    const attacker = await register(running, { password: PASSWORD });
    expectError(await api('/api/auth/account', { method: 'DELETE', token: attacker.token, json: { confirm: victim.email } }), 400, 'VALIDATION_ERROR');
    expectError(await api(`/api/admin/users/${victim.userId}`, { method: 'DELETE', token: attacker.token, json: { deleteSoleOwnedOrganizations: true } }), 403, 'FORBIDDEN');
    expect((await me(victim.token)).status).toBe(200);
    expect((await me(attacker.token)).status).toBe(200);
  });

  it('the export of a user who used every method holds none of their secrets: password, tokens, codes, keys', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    const device = await enableTwoFactor(account.token);
    const signedIn = await login(account.email);
    const code = await nextCode(device);
    const second = await api('/api/auth/2fa/verify', { json: { mfaToken: signedIn.body.mfaToken, code } });
    const recovery = await api('/api/auth/2fa/recovery-codes', { token: second.body.token, json: { code: await nextCode(device) } });
    const authenticator = new SoftAuthenticator(TEST_APP_URL);
    await addPasskey({ ...account, token: second.body.token }, authenticator);
    const reply = await api('/api/auth/account/export', { token: second.body.token });
    expect(reply.status).toBe(200);
    expect(reply.body.signInMethods).toMatchObject({
      password: { set: true },
      passkeys: [{ name: expect.any(String), createdAt: expect.any(String) }],
      twoFactor: { enabled: true, recoveryCodesLeft: 10 },
      identities: [],
    });
    const text = JSON.stringify(reply.body);
    const secrets = [PASSWORD, account.token, second.body.token, second.body.refreshToken, signedIn.body.mfaToken, device.secret, code, ...recovery.body.recoveryCodes];
    for (const secret of secrets) expect(text).not.toContain(secret);
    const credential = authenticator.credentials[0]!;
    expect(text).not.toContain(credential.id.toString('base64url'));
  });
});
