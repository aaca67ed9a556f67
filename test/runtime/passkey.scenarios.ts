/**
 * The passkey module (CONTRACT B.13) against a real generated app, over HTTP, with the software
 * authenticator of test/helpers/soft-authenticator.ts: every rule of B.13 once as the honest case
 * and once as the attack or the broken authenticator it is there to stop. Shared by the full
 * fixture (SQLite, with the magic link and TOTP) and hosted-postgresql (PostgreSQL, password only
 * besides passkeys, so a passkey can be the last way in).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { register, uniqueEmail, type Account } from '../helpers/accounts.js';
import { call, runAppUntilExit, startAppProcess } from '../helpers/app-process.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { TEST_APP_URL, type RunningApp } from '../helpers/running-app.js';
import { SoftAuthenticator, strayKey } from '../helpers/soft-authenticator.js';
import { nextCode, wrongCode, type TotpDevice } from '../helpers/totp-codes.js';

const PASSWORD = 'correct horse battery staple';
const ORIGIN = TEST_APP_URL;
const RP_ID = new URL(TEST_APP_URL).hostname;

/** SQL on the app's database; statements use $1, $2... placeholders and double-quoted names. */
export interface AppDatabase {
  query<Row = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<Row[]>;
  /** A timestamp parameter as the database's Prisma adapter stores it. */
  date(ms: number): unknown;
}

export interface PasskeyScenarioSetup {
  fixture: () => PreparedFixture;
  running: RunningApp;
  db: () => AppDatabase;
  /** The fixture has TOTP, so passkeys also serve as the second factor. */
  totp: boolean;
  /** The fixture has the magic link: every verified user can always sign in by mail. */
  magicLink: boolean;
  /** A token of a session that signed in `minutesAgo` minutes ago (for the recent sign-in rule), when the database allows it here. */
  oldToken?: (userId: string, minutesAgo: number) => Promise<string>;
}

export function describePasskeyScenarios(setup: PasskeyScenarioSetup): void {
  const { running } = setup;
  const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);
  const post = (path: string, json: unknown = {}, token?: string) => api(path, { json, token });

  function expectError(response: { status: number; body: any }, status: number, code: string) {
    expect(response.body, JSON.stringify(response.body)).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
    expect(response.status).toBe(status);
  }

  interface PasskeyUser extends Account {
    authenticator: SoftAuthenticator;
    passkeyId: string;
  }

  /** A verified user (password too) with one passkey on a new authenticator. */
  async function withPasskey(authenticator = new SoftAuthenticator(ORIGIN)): Promise<PasskeyUser> {
    const account = await register(running, { password: PASSWORD, verified: true });
    const passkeyId = await addPasskey(account, authenticator);
    return { ...account, authenticator, passkeyId };
  }

  async function addPasskey(account: Account, authenticator: SoftAuthenticator, name?: string): Promise<string> {
    const options = await post('/api/auth/passkey/register/options', {}, account.token);
    expect(options.status).toBe(200);
    const { response } = authenticator.create(options.body);
    const verified = await post('/api/auth/passkey/register/verify', { response, name }, account.token);
    expect(verified.status, JSON.stringify(verified.body)).toBe(201);
    return verified.body.passkey.id;
  }

  const loginOptions = async () => (await post('/api/auth/passkey/login/options')).body;
  const loginVerify = (response: unknown) => post('/api/auth/passkey/login/verify', { response });

  async function signInWithPasskey(user: PasskeyUser, bend: Parameters<SoftAuthenticator['get']>[1] = {}) {
    return loginVerify(user.authenticator.get(await loginOptions(), bend));
  }

  function expectTokenResponse(response: { status: number; body: any }, userId: string) {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({
      token: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
      refreshToken: expect.any(String),
      refreshExpiresIn: expect.any(Number),
      user: expect.objectContaining({ id: userId }),
    });
  }

  const sha256hex = (text: string) => createHash('sha256').update(text).digest('hex');
  const challengeRows = (challenge: string) =>
    setup.db().query<{ kind: string; userId: string | null; usedAt: unknown; expiresAt: unknown }>(
      'SELECT "kind", "userId", "usedAt", "expiresAt" FROM "PasskeyChallenge" WHERE "challengeHash" = $1',
      [sha256hex(challenge)],
    );

  describe('routes and configuration', () => {
    it('lists passkey in /api/auth/providers and documents its routes in OpenAPI', async () => {
      expect((await api('/api/auth/providers')).body.methods).toContain('passkey');
      const { body } = await api('/api/openapi.json');
      const routes = Object.entries(body.paths as Record<string, object>).flatMap(([route, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${route}`));
      const expected = [
        'POST /api/auth/passkey/register/options',
        'POST /api/auth/passkey/register/verify',
        'POST /api/auth/passkey/login/options',
        'POST /api/auth/passkey/login/verify',
        'GET /api/auth/passkeys',
        'PATCH /api/auth/passkeys/{id}',
        'DELETE /api/auth/passkeys/{id}',
      ];
      if (setup.totp) expected.push('POST /api/auth/2fa/passkey/options', 'POST /api/auth/2fa/passkey/verify');
      for (const route of expected) expect(routes).toContain(route);
      expect(routes.some((route) => route.includes('/2fa/passkey/'))).toBe(setup.totp);
    });

    it('refuses to start when APP_URL is an IP address and WEBAUTHN_RP_ID is not set, naming the variable', async () => {
      const result = await runAppUntilExit(setup.fixture().dir, running.env({ APP_URL: 'http://127.0.0.1:3000' }));
      expect(result.code).toBe(1);
      expect(result.output).toMatch(/WEBAUTHN_RP_ID.*IP address/);
      expect(result.output).not.toMatch(/server listening|\n\s+at /);
    });

    it('refuses to start when WEBAUTHN_RP_ID is not the domain of every origin in WEBAUTHN_ORIGINS', async () => {
      const result = await runAppUntilExit(setup.fixture().dir, running.env({ WEBAUTHN_RP_ID: 'frontend.test', WEBAUTHN_ORIGINS: 'http://frontend.test,https://evil.example' }));
      expect(result.code).toBe(1);
      expect(result.output).toContain('WEBAUTHN_RP_ID must be the host of every origin in WEBAUTHN_ORIGINS');
      expect(result.output).toContain('https://evil.example');
      const suffix = await runAppUntilExit(setup.fixture().dir, running.env({ WEBAUTHN_RP_ID: 'test' }));
      expect(suffix.code).toBe(1);
      expect(suffix.output).toContain('WEBAUTHN_RP_ID must be a registrable domain name');
    });
  });

  describe('adding a passkey', () => {
    it('creation options: rp from config, an opaque random user handle, resident key and user verification required, no attestation, ES256/EdDSA/RS256, the user\'s passkeys excluded', async () => {
      const user = await withPasskey();
      const response = await post('/api/auth/passkey/register/options', {}, user.token);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const options = response.body;
      expect(options.rp).toEqual({ id: RP_ID, name: expect.any(String) });
      expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
      expect(options.attestation).toBe('none');
      expect(options.pubKeyCredParams.map((param: { alg: number }) => param.alg).sort((a: number, b: number) => a - b)).toEqual([-257, -8, -7]);
      expect(options.excludeCredentials.map((credential: { id: string }) => credential.id)).toEqual([user.authenticator.credentials[0]!.id.toString('base64url')]);
      // The handle: 32 random bytes, the same on every passkey of the user, never the id or the email.
      const handle = Buffer.from(options.user.id, 'base64url');
      expect(handle.length).toBe(32);
      expect(options.user.id).toBe(user.authenticator.credentials[0]!.userHandle);
      expect(handle.toString('utf8')).not.toContain(user.userId);
      expect(options.user.id).not.toContain(Buffer.from(user.userId).toString('base64url'));
      expect(options.user.id).not.toContain(Buffer.from(user.email).toString('base64url'));
      const other = await register(running, { password: PASSWORD, verified: true });
      const otherOptions = (await post('/api/auth/passkey/register/options', {}, other.token)).body;
      expect(otherOptions.user.id).not.toBe(options.user.id);
      // The challenge: 256 bits, kept only as a hash, for a registration by this user, for 5 minutes.
      expect(Buffer.from(options.challenge, 'base64url').length).toBeGreaterThanOrEqual(16);
      const [row] = await challengeRows(options.challenge);
      expect(row).toMatchObject({ kind: 'registration', userId: user.userId, usedAt: null });
      const lifetime = new Date(row!.expiresAt as string).getTime() - Date.now();
      expect(lifetime).toBeGreaterThan(4 * 60_000);
      expect(lifetime).toBeLessThanOrEqual(5 * 60_000);
      expect(await setup.db().query('SELECT 1 FROM "PasskeyChallenge" WHERE "challengeHash" = $1', [options.challenge])).toEqual([]);
    });

    it('stores the public key, counter, transports, device type and backup state, and answers 201 { passkey }', async () => {
      const account = await register(running, { password: PASSWORD, verified: true });
      const authenticator = new SoftAuthenticator(ORIGIN);
      const options = await post('/api/auth/passkey/register/options', {}, account.token);
      const { response } = authenticator.create(options.body);
      const created = await post('/api/auth/passkey/register/verify', { response, name: ' Laptop ' }, account.token);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        passkey: { id: expect.any(String), name: 'Laptop', createdAt: expect.any(String), lastUsedAt: null, deviceType: 'multiDevice', backedUp: true },
      });
      const [row] = await setup.db().query<Record<string, unknown>>('SELECT * FROM "Passkey" WHERE "id" = $1', [created.body.passkey.id]);
      expect(row).toMatchObject({ userId: account.userId, credentialId: response.id, transports: 'internal', deviceType: 'multiDevice' });
      expect(String(row!.publicKey).length).toBeGreaterThan(80);
      expect(Number(row!.counter)).toBe(0);
      expect((await api('/api/auth/passkeys', { token: account.token })).body).toEqual({ passkeys: [created.body.passkey] });
    });

    it('needs a signed-in user with a verified email (401, 403 EMAIL_NOT_VERIFIED)', async () => {
      expectError(await post('/api/auth/passkey/register/options'), 401, 'UNAUTHENTICATED');
      const unverified = await register(running, { password: PASSWORD });
      expectError(await post('/api/auth/passkey/register/options', {}, unverified.token), 403, 'EMAIL_NOT_VERIFIED');
      const { response } = new SoftAuthenticator(ORIGIN).create({ challenge: 'AAAA', rp: { id: RP_ID, name: 'x' }, user: { id: 'AAAA', name: 'x', displayName: 'x' } });
      expectError(await post('/api/auth/passkey/register/verify', { response }, unverified.token), 403, 'EMAIL_NOT_VERIFIED');
    });

    if (setup.oldToken) {
      it('needs a recent sign-in to add or remove a passkey (403 REAUTH_REQUIRED)', async () => {
        const user = await withPasskey();
        const old = await setup.oldToken!(user.userId, 20);
        expectError(await post('/api/auth/passkey/register/options', {}, old), 403, 'REAUTH_REQUIRED');
        expectError(await api(`/api/auth/passkeys/${user.passkeyId}`, { method: 'DELETE', token: old }), 403, 'REAUTH_REQUIRED');
        expect((await api('/api/auth/passkeys', { token: old })).body.passkeys).toHaveLength(1);
      });
    }

    it('refuses a registration from another origin, for another RP id or without user verification (400), and uses its challenge up', async () => {
      const account = await register(running, { password: PASSWORD, verified: true });
      for (const bend of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }]) {
        const options = (await post('/api/auth/passkey/register/options', {}, account.token)).body;
        const { response } = new SoftAuthenticator(ORIGIN).create(options, bend);
        expectError(await post('/api/auth/passkey/register/verify', { response }, account.token), 400, 'VALIDATION_ERROR');
        // The failed try used the challenge: the same response again is an unknown challenge.
        expectError(await post('/api/auth/passkey/register/verify', { response }, account.token), 401, 'INVALID_TOKEN');
      }
      expect((await api('/api/auth/passkeys', { token: account.token })).body.passkeys).toEqual([]);
    });

    it('refuses an unknown, used, expired or another user\'s registration challenge, and a sign-in challenge (401 INVALID_TOKEN)', async () => {
      const account = await register(running, { password: PASSWORD, verified: true });
      const other = await register(running, { password: PASSWORD, verified: true });
      const authenticator = new SoftAuthenticator(ORIGIN);
      const options = (await post('/api/auth/passkey/register/options', {}, account.token)).body;
      // unknown
      expectError(await post('/api/auth/passkey/register/verify', { response: authenticator.create(options, { challenge: 'bm90LWEtY2hhbGxlbmdl' }).response }, account.token), 401, 'INVALID_TOKEN');
      // another user's
      expectError(await post('/api/auth/passkey/register/verify', { response: authenticator.create(options).response }, other.token), 401, 'INVALID_TOKEN');
      // a sign-in challenge
      const signIn = await loginOptions();
      expectError(await post('/api/auth/passkey/register/verify', { response: authenticator.create({ ...options, challenge: signIn.challenge }).response }, account.token), 401, 'INVALID_TOKEN');
      // expired
      const late = (await post('/api/auth/passkey/register/options', {}, account.token)).body;
      await setup.db().query('UPDATE "PasskeyChallenge" SET "expiresAt" = $1 WHERE "challengeHash" = $2', [setup.db().date(Date.now() - 1000), sha256hex(late.challenge)]);
      expectError(await post('/api/auth/passkey/register/verify', { response: authenticator.create(late).response }, account.token), 401, 'INVALID_TOKEN');
      // used: a good registration, then the same response again
      const fresh = (await post('/api/auth/passkey/register/options', {}, account.token)).body;
      const { response } = new SoftAuthenticator(ORIGIN).create(fresh);
      expect((await post('/api/auth/passkey/register/verify', { response }, account.token)).status).toBe(201);
      expectError(await post('/api/auth/passkey/register/verify', { response }, account.token), 401, 'INVALID_TOKEN');
      expect((await api('/api/auth/passkeys', { token: account.token })).body.passkeys).toHaveLength(1);
    });
  });

  describe('signing in with a passkey', () => {
    it('request options: empty allowCredentials, user verification required, a fresh sign-in challenge each time', async () => {
      const first = await post('/api/auth/passkey/login/options');
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.body).toMatchObject({ rpId: RP_ID, userVerification: 'required', allowCredentials: [] });
      const second = await loginOptions();
      expect(second.challenge).not.toBe(first.body.challenge);
      expect(await challengeRows(first.body.challenge)).toEqual([expect.objectContaining({ kind: 'sign-in', userId: null, usedAt: null })]);
    });

    it('a passkey sign-in is a complete sign-in: a token response, a session whose method is passkey, the counter stored', async () => {
      const user = await withPasskey();
      const response = await signInWithPasskey(user, { counter: 7 });
      expectTokenResponse(response, user.userId);
      const sessions = (await api('/api/auth/sessions', { token: response.body.token })).body.sessions;
      expect(sessions.find((session: { current: boolean }) => session.current)).toMatchObject({ method: 'passkey' });
      const [row] = await setup.db().query<{ counter: unknown; lastUsedAt: unknown }>('SELECT "counter", "lastUsedAt" FROM "Passkey" WHERE "id" = $1', [user.passkeyId]);
      expect(Number(row!.counter)).toBe(7);
      expect(row!.lastUsedAt).not.toBeNull();
    });

    it('refuses an assertion from another origin (401 INVALID_CREDENTIALS)', async () => {
      const user = await withPasskey();
      expectError(await signInWithPasskey(user, { origin: 'https://evil.example' }), 401, 'INVALID_CREDENTIALS');
      expectError(await signInWithPasskey(user, { origin: `${ORIGIN}:8443` }), 401, 'INVALID_CREDENTIALS');
    });

    it('refuses an assertion for another RP id (401 INVALID_CREDENTIALS)', async () => {
      const user = await withPasskey();
      expectError(await signInWithPasskey(user, { rpId: 'evil.example' }), 401, 'INVALID_CREDENTIALS');
      expectError(await signInWithPasskey(user, { rpId: `sub.${RP_ID}` }), 401, 'INVALID_CREDENTIALS');
    });

    it('refuses an assertion without user verification (401 INVALID_CREDENTIALS)', async () => {
      const user = await withPasskey();
      expectError(await signInWithPasskey(user, { userVerified: false }), 401, 'INVALID_CREDENTIALS');
      expectTokenResponse(await signInWithPasskey(user), user.userId);
    });

    it('refuses a signature counter that goes backwards or stands still (401 INVALID_CREDENTIALS), and accepts zero from an authenticator that keeps it at zero', async () => {
      const user = await withPasskey();
      expectTokenResponse(await signInWithPasskey(user, { counter: 5 }), user.userId);
      expectError(await signInWithPasskey(user, { counter: 3 }), 401, 'INVALID_CREDENTIALS');
      expectError(await signInWithPasskey(user, { counter: 5 }), 401, 'INVALID_CREDENTIALS');
      expectTokenResponse(await signInWithPasskey(user, { counter: 6 }), user.userId);
      const zero = await withPasskey();
      expectTokenResponse(await signInWithPasskey(zero, { counter: 0 }), zero.userId);
      expectTokenResponse(await signInWithPasskey(zero, { counter: 0 }), zero.userId);
    });

    it('refuses a signature by another key (401 INVALID_CREDENTIALS)', async () => {
      const user = await withPasskey();
      expectError(await signInWithPasskey(user, { signWith: strayKey() }), 401, 'INVALID_CREDENTIALS');
    });

    it('refuses a replayed assertion (401 INVALID_CREDENTIALS)', async () => {
      const user = await withPasskey();
      const assertion = user.authenticator.get(await loginOptions());
      expectTokenResponse(await loginVerify(assertion), user.userId);
      expectError(await loginVerify(assertion), 401, 'INVALID_CREDENTIALS');
    });

    it('refuses a registration challenge used to sign in, and an expired sign-in challenge (401 INVALID_CREDENTIALS)', async () => {
      const user = await withPasskey();
      const registration = (await post('/api/auth/passkey/register/options', {}, user.token)).body;
      expectError(await loginVerify(user.authenticator.get({ challenge: registration.challenge, rpId: RP_ID })), 401, 'INVALID_CREDENTIALS');
      const late = await loginOptions();
      await setup.db().query('UPDATE "PasskeyChallenge" SET "expiresAt" = $1 WHERE "challengeHash" = $2', [setup.db().date(Date.now() - 1000), sha256hex(late.challenge)]);
      expectError(await loginVerify(user.authenticator.get(late)), 401, 'INVALID_CREDENTIALS');
      expectError(await loginVerify(user.authenticator.get(await loginOptions(), { challenge: 'bm90LWEtY2hhbGxlbmdl' })), 401, 'INVALID_CREDENTIALS');
    });

    it("refuses another user's credential id, an unknown credential and another user's handle (401 INVALID_CREDENTIALS)", async () => {
      const victim = await withPasskey();
      const attacker = await withPasskey();
      const victimCredential = victim.authenticator.credentials[0]!.id.toString('base64url');
      // The attacker's key signs, naming the victim's credential (and handle): the victim's key does not verify it.
      expectError(await signInWithPasskey(attacker, { credentialId: victimCredential, userHandle: victim.authenticator.credentials[0]!.userHandle }), 401, 'INVALID_CREDENTIALS');
      expectError(await signInWithPasskey(attacker, { credentialId: 'dW5rbm93bi1jcmVkZW50aWFs' }), 401, 'INVALID_CREDENTIALS');
      // The attacker's own passkey with the victim's handle: the handle names another user.
      expectError(await signInWithPasskey(attacker, { userHandle: victim.authenticator.credentials[0]!.userHandle }), 401, 'INVALID_CREDENTIALS');
      expectTokenResponse(await signInWithPasskey(victim), victim.userId);
    });

    it('two concurrent verifies of one challenge: exactly one succeeds', async () => {
      const users = await Promise.all([withPasskey(), withPasskey(), withPasskey(), withPasskey()]);
      const options = await loginOptions();
      const results = await Promise.all(users.map((user) => loginVerify(user.authenticator.get(options))));
      expect(results.map((result) => result.status).sort()).toEqual([200, 401, 401, 401]);
      const [row] = await challengeRows(options.challenge);
      expect(row!.usedAt).not.toBeNull();
    });

    it('a malformed response is 400 VALIDATION_ERROR, never a 500', async () => {
      for (const response of [undefined, 'x', {}, { id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: '!!', authenticatorData: '', signature: '' } }]) {
        const answer = await loginVerify(response);
        expectError(answer, 400, 'VALIDATION_ERROR');
      }
      const garbage = await loginVerify({ id: 'YQ', rawId: 'YQ', type: 'public-key', response: { clientDataJSON: 'YQ', authenticatorData: 'YQ', signature: 'YQ' } });
      expectError(garbage, 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('listing, renaming and removing', () => {
    it("lists the caller's passkeys, renames one, and answers 404 for another user's", async () => {
      const user = await withPasskey();
      const other = await withPasskey();
      const list = await api('/api/auth/passkeys', { token: user.token });
      expect(list.body).toEqual({ passkeys: [expect.objectContaining({ id: user.passkeyId })] });
      const renamed = await api(`/api/auth/passkeys/${user.passkeyId}`, { method: 'PATCH', token: user.token, json: { name: 'Phone' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.passkey).toMatchObject({ id: user.passkeyId, name: 'Phone' });
      expectError(await api(`/api/auth/passkeys/${other.passkeyId}`, { method: 'PATCH', token: user.token, json: { name: 'Mine' } }), 404, 'NOT_FOUND');
      expectError(await api(`/api/auth/passkeys/${other.passkeyId}`, { method: 'DELETE', token: user.token }), 404, 'NOT_FOUND');
      // Issue 31 item 7: before 4.1 a passkey's name refused only control characters, not U+202E or U+2028.
      for (const name of ['a\nb', 'invoice\u202Efdp.exe', 'Ada\u2028Lovelace', 'a\u2066b']) {
        expectError(await api(`/api/auth/passkeys/${user.passkeyId}`, { method: 'PATCH', token: user.token, json: { name } }), 400, 'VALIDATION_ERROR');
      }
      expect((await api('/api/auth/passkeys', { token: other.token })).body.passkeys[0].name).not.toBe('Mine');
      expect((await api(`/api/auth/passkeys/${user.passkeyId}`, { method: 'DELETE', token: user.token })).status).toBe(204);
      expectError(await signInWithPasskey(user), 401, 'INVALID_CREDENTIALS');
    });

    it('refuses to remove the last way to sign in (409 LAST_SIGN_IN_METHOD), and removes a passkey when another way remains', async () => {
      const user = await withPasskey();
      const second = await addPasskey(user, new SoftAuthenticator(ORIGIN));
      // Without a password the passkeys are the way in (an account made by a provider has none).
      await setup.db().query('DELETE FROM "PasswordCredential" WHERE "userId" = $1', [user.userId]);
      expect((await api(`/api/auth/passkeys/${second}`, { method: 'DELETE', token: user.token })).status).toBe(204);
      const last = await api(`/api/auth/passkeys/${user.passkeyId}`, { method: 'DELETE', token: user.token });
      if (setup.magicLink) {
        // A verified address can always ask for a sign-in link, so even the last passkey can go.
        expect(last.status).toBe(204);
      } else {
        expectError(last, 409, 'LAST_SIGN_IN_METHOD');
        expectTokenResponse(await signInWithPasskey(user), user.userId);
      }
    });
  });

  // Issue 31, item 5. Before 4.1 the identity's removal counted the passkey as the way left, and
  // the passkey's removal counted the identity: at the same moment both went, 2 times in 6, and
  // the account had no way in. Removals of one user now run one after the other.
  it('two removals at the same moment (the last identity and the last passkey) never both win, 8 times over', async () => {
    for (let run = 0; run < 8; run++) {
      const user = await withPasskey();
      // An account a hosted service made has an identity and no password.
      await setup.db().query('DELETE FROM "PasswordCredential" WHERE "userId" = $1', [user.userId]);
      const identityId = `race-identity-${run}-${user.userId}`;
      await setup.db().query(
        'INSERT INTO "Account" ("id", "userId", "type", "provider", "providerAccountId", "createdAt") VALUES ($1, $2, $3, $4, $5, $6)',
        [identityId, user.userId, 'hosted', 'clerk', `user_race_${run}_${user.userId}`, setup.db().date(Date.now())],
      );
      const [identity, passkey] = await Promise.all([
        api(`/api/auth/identities/${identityId}`, { method: 'DELETE', token: user.token }),
        api(`/api/auth/passkeys/${user.passkeyId}`, { method: 'DELETE', token: user.token }),
      ]);
      const left = (await setup.db().query('SELECT "id" FROM "Account" WHERE "userId" = $1', [user.userId])).length +
        (await setup.db().query('SELECT "id" FROM "Passkey" WHERE "userId" = $1', [user.userId])).length;
      if (setup.magicLink) {
        // Mailed links are a way in for every account, so both may go.
        expect([identity.status, passkey.status], `run ${run}`).toEqual([204, 204]);
      } else {
        expect([identity.status, passkey.status].sort(), `run ${run}: ${JSON.stringify([identity.body, passkey.body])}`).toEqual([204, 409]);
        expectError(identity.status === 409 ? identity : passkey, 409, 'LAST_SIGN_IN_METHOD');
        expect(left, `run ${run}: ways in left`).toBe(1);
      }
    }
  });

  it("a provisional take-over removes the squatter's passkey: it no longer signs anyone in", async () => {
    // A squatter registers the victim's address. Passkeys need a verified address, so the squatter's
    // passkey is moved onto that provisional account in the database, as if it had got one there.
    const email = uniqueEmail('victim');
    const squatter = await register(running, { email, password: PASSWORD });
    const helper = await withPasskey();
    await setup.db().query('UPDATE "Passkey" SET "userId" = $1 WHERE "userId" = $2', [squatter.userId, helper.userId]);
    await setup.db().query('UPDATE "PasskeyHandle" SET "userId" = $1 WHERE "userId" = $2', [squatter.userId, helper.userId]);
    const before = await signInWithPasskey(helper);
    expectTokenResponse(before, squatter.userId);
    // The owner of the mailbox proves it with a reset link: the account is taken over.
    const since = running.mail.messages.length;
    expect((await post('/api/auth/password/forgot', { email })).status).toBe(202);
    const mail = await running.mail.waitForMail(email, { since });
    const token = new URL(linkFrom(mail, `${TEST_APP_URL}/reset-password?token=`)).searchParams.get('token');
    const reset = await post('/api/auth/password/reset', { token, password: 'the owner now holds it' });
    expect(reset.status).toBe(200);
    expect(reset.body.user).toMatchObject({ id: squatter.userId, emailVerified: true });
    expect(await setup.db().query('SELECT "id" FROM "Passkey" WHERE "userId" = $1', [squatter.userId])).toEqual([]);
    expectError(await signInWithPasskey(helper), 401, 'INVALID_CREDENTIALS');
    expectError(await api('/api/auth/me', { token: before.body.token }), 401, 'UNAUTHENTICATED');
  });

  it('expired challenges are deleted by the cleanup at start-up', async () => {
    const stale = await loginOptions();
    const live = await loginOptions();
    await setup.db().query('UPDATE "PasskeyChallenge" SET "expiresAt" = $1 WHERE "challengeHash" = $2', [setup.db().date(Date.now() - 60_000), sha256hex(stale.challenge)]);
    const second = await startAppProcess(setup.fixture().dir, running.env());
    try {
      await expect.poll(async () => (await challengeRows(stale.challenge)).length, { timeout: 10_000 }).toBe(0);
      expect(await challengeRows(live.challenge)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });

  if (setup.totp) {
    describe('as the second factor', () => {
      interface TwoFactorUser extends PasskeyUser, TotpDevice {}

      async function withTwoFactor(passkey = true): Promise<TwoFactorUser> {
        const account = await register(running, { password: PASSWORD, verified: true });
        const started = await post('/api/auth/2fa/setup', {}, account.token);
        const device: TotpDevice = { secret: started.body.secret, lastStep: -1 };
        expect((await post('/api/auth/2fa/enable', { code: await nextCode(device) }, account.token)).status).toBe(200);
        const authenticator = new SoftAuthenticator(ORIGIN);
        const passkeyId = passkey ? await addPasskey(account, authenticator) : '';
        return { ...account, ...device, authenticator, passkeyId };
      }

      const mfaAnswer = async (user: Account) => (await post('/api/auth/login', { email: user.email, password: PASSWORD })).body;
      const options2fa = async (mfaToken: string) => post('/api/auth/2fa/passkey/options', { mfaToken });
      const verify2fa = (mfaToken: string, response: unknown) => post('/api/auth/2fa/passkey/verify', { mfaToken, response });

      it('the mfa answer lists passkey when the user has one, and only then', async () => {
        expect((await mfaAnswer(await withTwoFactor(false))).methods).toEqual(['totp', 'recovery_code']);
        const answer = await mfaAnswer(await withTwoFactor());
        expect(answer).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code', 'passkey'] });
      });

      it("a passkey sign-in of a 2FA user asks for no second factor", async () => {
        const user = await withTwoFactor();
        expectTokenResponse(await signInWithPasskey(user), user.userId);
      });

      it('options then verify complete a password sign-in; the session keeps the first factor as its method', async () => {
        const user = await withTwoFactor();
        const { mfaToken } = await mfaAnswer(user);
        const options = await options2fa(mfaToken);
        expect(options.status).toBe(200);
        expect(options.body.allowCredentials.map((credential: { id: string }) => credential.id)).toEqual([user.authenticator.credentials[0]!.id.toString('base64url')]);
        expect(options.body.userVerification).toBe('required');
        const done = await verify2fa(mfaToken, user.authenticator.get(options.body));
        expectTokenResponse(done, user.userId);
        const sessions = (await api('/api/auth/sessions', { token: done.body.token })).body.sessions;
        expect(sessions.find((session: { current: boolean }) => session.current)).toMatchObject({ method: 'password' });
        // The mfa token is used up: no new challenge for it, and no sign-in.
        expectError(await options2fa(mfaToken), 401, 'INVALID_TOKEN');
        expectError(await verify2fa(mfaToken, user.authenticator.get(options.body)), 401, 'INVALID_TOKEN');
      });

      // Issue 31 item 7: before 4.1 options answered a used, expired or exhausted mfa token with a
      // challenge and the user's credential ids (the same mfa token rules as B.8 apply to options).
      it('a used, expired or exhausted mfa token gets 401 INVALID_TOKEN at options, and no challenge or credential ids', async () => {
        const user = await withTwoFactor();
        const credentialId = user.authenticator.credentials[0]!.id.toString('base64url');
        const challengesBefore = async () => (await setup.db().query<{ n: number }>('SELECT COUNT(*) AS "n" FROM "PasskeyChallenge" WHERE "userId" = $1', [user.userId]))[0]!.n;
        const used = (await mfaAnswer(user)).mfaToken;
        expectTokenResponse(await verify2fa(used, user.authenticator.get((await options2fa(used)).body)), user.userId);
        const expired = (await mfaAnswer(user)).mfaToken;
        await setup.db().query('UPDATE "TwoFactorChallenge" SET "expiresAt" = $1 WHERE "tokenHash" = $2', [setup.db().date(Date.now() - 1000), sha256hex(expired)]);
        const exhausted = (await mfaAnswer(user)).mfaToken;
        for (let i = 0; i < 5; i++) expectError(await post('/api/auth/2fa/verify', { mfaToken: exhausted, code: wrongCode(user.secret) }), 401, 'INVALID_CODE');
        const before = Number(await challengesBefore());
        for (const [label, mfaToken] of [['used', used], ['expired', expired], ['exhausted', exhausted]] as const) {
          const options = await options2fa(mfaToken);
          expectError(options, 401, 'INVALID_TOKEN');
          expect(JSON.stringify(options.body), label).not.toContain(credentialId);
        }
        expect(Number(await challengesBefore())).toBe(before);
      });

      it('a failed passkey is 401 INVALID_CREDENTIALS and one of the 5 attempts; asking for options is not an attempt', async () => {
        const user = await withTwoFactor();
        const { mfaToken } = await mfaAnswer(user);
        for (let i = 0; i < 6; i++) expect((await options2fa(mfaToken)).status).toBe(200);
        for (let i = 0; i < 5; i++) {
          const options = (await options2fa(mfaToken)).body;
          expectError(await verify2fa(mfaToken, user.authenticator.get(options, { signWith: strayKey() })), 401, 'INVALID_CREDENTIALS');
        }
        expectError(await options2fa(mfaToken), 401, 'INVALID_TOKEN');
      });

      it('a second-factor challenge does not sign anyone in at /passkey/login/verify (401 INVALID_CREDENTIALS)', async () => {
        const user = await withTwoFactor();
        const { mfaToken } = await mfaAnswer(user);
        const options = (await options2fa(mfaToken)).body;
        expectError(await loginVerify(user.authenticator.get(options)), 401, 'INVALID_CREDENTIALS');
      });

      it("refuses another user's passkey, a sign-in challenge and no user verification as the second factor", async () => {
        const user = await withTwoFactor();
        const stranger = await withPasskey();
        const { mfaToken } = await mfaAnswer(user);
        const options = (await options2fa(mfaToken)).body;
        expectError(await verify2fa(mfaToken, stranger.authenticator.get({ ...options, allowCredentials: [] })), 401, 'INVALID_CREDENTIALS');
        const signIn = await loginOptions();
        expectError(await verify2fa(mfaToken, user.authenticator.get(signIn)), 401, 'INVALID_CREDENTIALS');
        expectError(await verify2fa(mfaToken, user.authenticator.get((await options2fa(mfaToken)).body, { userVerified: false })), 401, 'INVALID_CREDENTIALS');
        expectError(await options2fa('not-a-token'), 401, 'INVALID_TOKEN');
        expectTokenResponse(await verify2fa(mfaToken, user.authenticator.get((await options2fa(mfaToken)).body)), user.userId);
      });
    });
  }
}
