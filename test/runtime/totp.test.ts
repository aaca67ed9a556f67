/**
 * The totp module (CONTRACT B.8) on a generated app with both first factors (jwt + magic-link +
 * totp): generated, installed, built and migrated for real, started as its own process and
 * exercised over HTTP, with a real SMTP server. magic-link.test.ts runs its password-and-link tests
 * on the same app. Codes come from an RFC 6238 implementation written here with node:crypto, not
 * from the library the app uses.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { TEST_APP_URL as APP_URL, expectCleanLogs, expectRateLimit, freshSqliteDatabase, useRunningApp } from '../helpers/running-app.js';
import { call, runAppUntilExit, startAppProcess } from '../helpers/app-process.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { register as registerAccount, uniqueEmail } from '../helpers/accounts.js';
import { sqliteFixtureWithChecks } from './project-checks.js';
import { base32Decode, currentStep, hotp, nextCode, totpAt, wrongCode, type TotpDevice } from '../helpers/totp-codes.js';

const PASSWORD = 'correct horse battery staple';
/** Tests that may wait for the next 30-second time step. */
const STEP_TIMEOUT = 75_000;

interface Account extends TotpDevice {
  email: string;
  token: string;
  userId: string;
  recoveryCodes: string[];
}

describe('the RFC 6238 implementation of these tests', () => {
  it('matches the RFC 6238 SHA-1 test vectors', () => {
    const key = Buffer.from('12345678901234567890');
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, expected] of vectors) expect(hotp(key, Math.floor(seconds / 30), 8)).toBe(expected);
    expect(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ').toString()).toBe('12345678901234567890');
  });
});

interface TotpSetup {
  name: string;
  fixture: () => PreparedFixture;
}

/** A TOTP_ENCRYPTION_KEY of its own; without one the app derives the key from JWT_SECRET. */
const ENCRYPTION_KEY = 'runtime-test-totp-key-0123456789-abcdefghijkl';

function describeTotpApp(setup: TotpSetup): void {
  const running = useRunningApp({
    fixture: setup.fixture,
    databaseUrl: () => freshSqliteDatabase(setup.fixture(), 'totp'),
  });

  /** Two-factor needs a verified address, so every user here proves the mailbox first. */
  const register = (email = uniqueEmail('mfa')) => registerAccount(running, { email, password: PASSWORD, verified: true });

  /** A registered user with two-factor on. */
  async function enrolled(url = running.app.url): Promise<Account> {
    const user = await register();
    const setupResponse = await call(url, '/api/auth/2fa/setup', { method: 'POST', token: user.token });
    expect(setupResponse.status).toBe(200);
    const account: Account = { ...user, secret: setupResponse.body.secret, recoveryCodes: [], lastStep: -1 };
    const enabled = await call(url, '/api/auth/2fa/enable', { token: user.token, json: { code: await nextCode(account) } });
    expect(enabled.status).toBe(200);
    account.recoveryCodes = enabled.body.recoveryCodes;
    return account;
  }

  async function passwordLogin(account: { email: string }) {
    return call(running.app.url, '/api/auth/login', { json: { email: account.email, password: PASSWORD } });
  }

  /** Password login of a user with two-factor on: the mfa answer, and its token. */
  async function mfaToken(account: Account): Promise<string> {
    const login = await passwordLogin(account);
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
    return login.body.mfaToken;
  }

  const verify = (json: object) => call(running.app.url, '/api/auth/2fa/verify', { json });

  function expectError(response: { status: number; body: any }, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
  }

  function expectTokenResponse(response: { status: number; body: any }, account: { userId: string; email: string }) {
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      token: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 900,
      refreshToken: expect.any(String),
      refreshExpiresIn: expect.any(Number),
      user: expect.objectContaining({ id: account.userId, email: account.email, twoFactorEnabled: true }),
    });
  }

  it('documents the five 2FA routes in OpenAPI and serves each of them', async () => {
    const { body } = await call(running.app.url, '/api/openapi.json');
    const routes = Object.entries(body.paths as Record<string, object>).flatMap(([route, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${route}`));
    for (const route of ['setup', 'enable', 'verify', 'disable', 'recovery-codes']) expect(routes).toContain(`POST /api/auth/2fa/${route}`);
    expect(routes).toContain('POST /api/auth/magic-link/verify');
    for (const route of routes) {
      const [method, pathname] = route.split(' ') as [string, string];
      const probe = await call(running.app.url, pathname, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
      expect(probe.status, route).not.toBe(404);
    }
    expect((await call(running.app.url, '/api/auth/providers')).body.hosted).toEqual(['totp']);
  });

  describe('setup and enable', () => {
    it('POST /2fa/setup (auth): secret, otpauth URL, QR code; not enabled yet; the secret is stored encrypted', async () => {
      const user = await register();
      expectError(await call(running.app.url, '/api/auth/2fa/setup', { method: 'POST' }), 401, 'UNAUTHENTICATED');
      const response = await call(running.app.url, '/api/auth/2fa/setup', { method: 'POST', token: user.token });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['otpauthUrl', 'qrCodeDataUrl', 'secret']);
      const { secret, otpauthUrl, qrCodeDataUrl } = response.body;
      expect(base32Decode(secret).length).toBeGreaterThanOrEqual(20);
      const url = new URL(otpauthUrl);
      expect(url.protocol).toBe('otpauth:');
      expect(url.host).toBe('totp');
      expect(decodeURIComponent(url.pathname)).toContain(user.email);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ secret, algorithm: 'SHA1', digits: '6', period: '30', issuer: setup.name });
      expect(qrCodeDataUrl).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(qrCodeDataUrl.split(',')[1], 'base64').subarray(1, 4).toString()).toBe('PNG');
      expect((await call(running.app.url, '/api/auth/me', { token: user.token })).body.user.twoFactorEnabled).toBe(false);
      // Not enabled: password login still answers with a token.
      expect((await passwordLogin(user)).body.token).toEqual(expect.any(String));

      const db = new Database(running.databaseUrl.slice('file:'.length), { readonly: true });
      try {
        const row = db.prepare('SELECT * FROM TwoFactorSecret WHERE userId = ?').get(user.userId) as { encryptedSecret: string };
        expect(row.encryptedSecret).not.toContain(secret);
        expect(JSON.stringify(row)).not.toContain(secret);
      } finally {
        db.close();
      }
    });

    it('POST /2fa/enable: 401 INVALID_CODE for a wrong code; a right one turns it on and returns 10 recovery codes, stored hashed', async () => {
      const user = await register();
      const { secret } = (await call(running.app.url, '/api/auth/2fa/setup', { method: 'POST', token: user.token })).body;
      expectError(await call(running.app.url, '/api/auth/2fa/enable', { token: user.token, json: { code: wrongCode(secret) } }), 401, 'INVALID_CODE');
      expect((await call(running.app.url, '/api/auth/2fa/enable', { token: user.token, json: { code: '12345' } })).status).toBe(400);
      const enabled = await call(running.app.url, '/api/auth/2fa/enable', { token: user.token, json: { code: totpAt(secret, currentStep()) } });
      expect(enabled.status).toBe(200);
      expect(Object.keys(enabled.body)).toEqual(['recoveryCodes']);
      expect(enabled.body.recoveryCodes).toHaveLength(10);
      expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
      for (const code of enabled.body.recoveryCodes) expect(code).toMatch(/^[a-z0-9-]{10,}$/);
      const me = await call(running.app.url, '/api/auth/me', { token: user.token });
      expect(me.body.user.twoFactorEnabled).toBe(true);
      const db = new Database(running.databaseUrl.slice('file:'.length), { readonly: true });
      try {
        const rows = db.prepare('SELECT * FROM RecoveryCode WHERE userId = ?').all(user.userId);
        expect(rows).toHaveLength(10);
        for (const code of enabled.body.recoveryCodes) expect(JSON.stringify(rows)).not.toContain(code);
      } finally {
        db.close();
      }
    });
  });

  describe('signing in with two-factor on', () => {

    it('POST /2fa/verify with a code answers the token response; the same code (time step) never works again', async () => {
      const account = await enrolled();
      const code = await nextCode(account);
      const signedIn = await verify({ mfaToken: await mfaToken(account), code });
      expectTokenResponse(signedIn, account);
      expect((await call(running.app.url, '/api/auth/me', { token: signedIn.body.token })).status).toBe(200);
      expectError(await verify({ mfaToken: await mfaToken(account), code }), 401, 'INVALID_CODE');
      // Codes of earlier steps are refused too, even inside the window.
      expectError(await verify({ mfaToken: await mfaToken(account), code: totpAt(account.secret, account.lastStep - 1) }), 401, 'INVALID_CODE');
    });

    it('two concurrent verifies with the same code: exactly one succeeds', async () => {
      const account = await enrolled();
      const code = await nextCode(account);
      const tokens = await Promise.all([mfaToken(account), mfaToken(account), mfaToken(account)]);
      const results = await Promise.all(tokens.map((token) => verify({ mfaToken: token, code })));
      expect(results.map((result) => result.status).sort()).toEqual([200, 401, 401]);
    });

    it('four wrong codes, then the right one on the fifth attempt, signs in', async () => {
      const account = await enrolled();
      const token = await mfaToken(account);
      for (let attempt = 1; attempt <= 4; attempt++) {
        expectError(await verify({ mfaToken: token, recoveryCode: `wrong-${attempt}` }), 401, 'INVALID_CODE');
      }
      expectTokenResponse(await verify({ mfaToken: token, code: await nextCode(account) }), account);
    });

    it('an mfaToken works once, and not after 10 minutes', async () => {
      const account = await enrolled();
      const token = await mfaToken(account);
      expectTokenResponse(await verify({ mfaToken: token, recoveryCode: account.recoveryCodes[0] }), account);
      expectError(await verify({ mfaToken: token, recoveryCode: account.recoveryCodes[1] }), 401, 'INVALID_TOKEN');

      const expiring = await mfaToken(account);
      const db = new Database(running.databaseUrl.slice('file:'.length));
      try {
        const row = db.prepare('SELECT id, expiresAt, createdAt FROM TwoFactorChallenge WHERE userId = ? AND usedAt IS NULL').get(account.userId) as { id: string; expiresAt: string; createdAt: string };
        const millis = (value: string | number) => (typeof value === 'number' ? value : Date.parse(value));
        expect(Math.abs(millis(row.expiresAt) - millis(row.createdAt) - 10 * 60_000)).toBeLessThan(5000);
        const past = Date.now() - 1000;
        db.prepare('UPDATE TwoFactorChallenge SET expiresAt = ? WHERE id = ?').run(typeof row.expiresAt === 'number' ? past : new Date(past).toISOString().replace('Z', '+00:00'), row.id);
      } finally {
        db.close();
      }
      expectError(await verify({ mfaToken: expiring, recoveryCode: account.recoveryCodes[1] }), 401, 'INVALID_TOKEN');
      expectError(await verify({ mfaToken: 'made-up-token', code: '123456' }), 401, 'INVALID_TOKEN');
      expect((await verify({ mfaToken: expiring })).status).toBe(400);
    });

    // Before issue 7 the reset changed the password and revoked every session at once, before
    // the second factor: someone with only the mailbox could lock the owner out.
    it('password reset of a user with two-factor on answers mfaRequired; the password changes only after the second factor', async () => {
      const account = await enrolled();
      const since = running.mail.messages.length;
      expect((await call(running.app.url, '/api/auth/password/forgot', { json: { email: account.email } })).status).toBe(202);
      const link = linkFrom(await running.mail.waitForMail(account.email, { since }), `${APP_URL}/reset-password?token=`);
      const reset = await call(running.app.url, '/api/auth/password/reset', { json: { token: new URL(link).searchParams.get('token'), password: 'a new passphrase here' } });
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
      expect((await call(running.app.url, '/api/auth/me', { token: account.token })).status).toBe(200);
      expect((await passwordLogin(account)).body.mfaRequired).toBe(true);
      expect((await call(running.app.url, '/api/auth/login', { json: { email: account.email, password: 'a new passphrase here' } })).status).toBe(401);

      expectTokenResponse(await verify({ mfaToken: reset.body.mfaToken, code: await nextCode(account) }), account);
      expect((await call(running.app.url, '/api/auth/me', { token: account.token })).status).toBe(401);
      expect((await passwordLogin(account)).status).toBe(401);
      expect((await call(running.app.url, '/api/auth/login', { json: { email: account.email, password: 'a new passphrase here' } })).body.mfaRequired).toBe(true);
    }, STEP_TIMEOUT);

    it('a magic link of a user with two-factor on answers mfaRequired, and only the second factor gives a token', async () => {
      const account = await enrolled();
      const since = running.mail.messages.length;
      expect((await call(running.app.url, '/api/auth/magic-link/send', { json: { email: account.email } })).status).toBe(202);
      const link = linkFrom(await running.mail.waitForMail(account.email, { since }), `${APP_URL}/magic-link?token=`);
      const byLink = await call(running.app.url, '/api/auth/magic-link/verify', { json: { token: new URL(link).searchParams.get('token') } });
      expect(byLink.status).toBe(200);
      expect(byLink.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
      expectError(await call(running.app.url, '/api/auth/me', { token: byLink.body.mfaToken }), 401, 'UNAUTHENTICATED');
      expectError(await verify({ mfaToken: byLink.body.mfaToken, code: wrongCode(account.secret) }), 401, 'INVALID_CODE');
      expectTokenResponse(await verify({ mfaToken: byLink.body.mfaToken, code: await nextCode(account) }), account);
    }, STEP_TIMEOUT);

    it('a user who signed up by magic link turns two-factor on, and the next link needs the second factor', async () => {
      const email = uniqueEmail();
      const since = running.mail.messages.length;
      await call(running.app.url, '/api/auth/magic-link/send', { json: { email } });
      const first = linkFrom(await running.mail.waitForMail(email, { since }), `${APP_URL}/magic-link?token=`);
      const signedUp = await call(running.app.url, '/api/auth/magic-link/verify', { json: { token: new URL(first).searchParams.get('token') } });
      expect(signedUp.status).toBe(200);
      const { secret } = (await call(running.app.url, '/api/auth/2fa/setup', { method: 'POST', token: signedUp.body.token })).body;
      const account: Account = { email, token: signedUp.body.token, userId: signedUp.body.user.id, secret, recoveryCodes: [], lastStep: -1 };
      expect((await call(running.app.url, '/api/auth/2fa/enable', { token: account.token, json: { code: await nextCode(account) } })).status).toBe(200);
      const again = running.mail.messages.length;
      await call(running.app.url, '/api/auth/magic-link/send', { json: { email } });
      const second = linkFrom(await running.mail.waitForMail(email, { since: again }), `${APP_URL}/magic-link?token=`);
      const byLink = await call(running.app.url, '/api/auth/magic-link/verify', { json: { token: new URL(second).searchParams.get('token') } });
      expect(byLink.body.mfaRequired).toBe(true);
      expect(byLink.body.token).toBeUndefined();
      expectTokenResponse(await verify({ mfaToken: byLink.body.mfaToken, code: await nextCode(account) }), account);
    }, STEP_TIMEOUT);
  });

  describe('managing two-factor', () => {

    it('POST /2fa/disable (auth, code): off, every earlier token revoked, login answers a token again', async () => {
      const account = await enrolled();
      const second = await verify({ mfaToken: await mfaToken(account), code: await nextCode(account) });
      expect(second.status).toBe(200);
      expectError(await call(running.app.url, '/api/auth/2fa/disable', { token: account.token, json: { code: wrongCode(account.secret) } }), 401, 'INVALID_CODE');
      expect((await call(running.app.url, '/api/auth/me', { token: account.token })).status).toBe(200);
      const disabled = await call(running.app.url, '/api/auth/2fa/disable', { token: account.token, json: { code: await nextCode(account) } });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toEqual({ user: expect.objectContaining({ id: account.userId, twoFactorEnabled: false }) });
      expectError(await call(running.app.url, '/api/auth/me', { token: account.token }), 401, 'UNAUTHENTICATED');
      expectError(await call(running.app.url, '/api/auth/me', { token: second.body.token }), 401, 'UNAUTHENTICATED');
      const login = await passwordLogin(account);
      expect(login.status).toBe(200);
      expect(login.body.token).toEqual(expect.any(String));
      expect(login.body.user.twoFactorEnabled).toBe(false);
      // Two-factor is off now, so managing it is refused.
      expect((await call(running.app.url, '/api/auth/2fa/recovery-codes', { token: login.body.token, json: { code: '000000' } })).status).toBe(403);
    }, STEP_TIMEOUT);

    it('setup again while on is refused; enable without setup is refused', async () => {
      const account = await enrolled();
      expectError(await call(running.app.url, '/api/auth/2fa/setup', { method: 'POST', token: account.token }), 403, 'FORBIDDEN');
      const fresh = await register();
      expectError(await call(running.app.url, '/api/auth/2fa/enable', { token: fresh.token, json: { code: '123456' } }), 403, 'FORBIDDEN');
      expectError(await call(running.app.url, '/api/auth/2fa/disable', { token: fresh.token, json: { code: '123456' } }), 403, 'FORBIDDEN');
    });
  });

  it('with another encryption key, stored secrets are unreadable: codes fail, recovery codes still work', async () => {
    const account = await enrolled();
    const rekeyed = await startAppProcess(setup.fixture().dir, running.env({ TOTP_ENCRYPTION_KEY: 'a-different-key-of-at-least-32-characters-0123' }));
    try {
      const login = await call(rekeyed.url, '/api/auth/login', { json: { email: account.email, password: PASSWORD } });
      expect(login.body.mfaRequired).toBe(true);
      const refused = await call(rekeyed.url, '/api/auth/2fa/verify', { json: { mfaToken: login.body.mfaToken, code: await nextCode(account) } });
      expectError(refused, 401, 'INVALID_CODE');
      // The log line reaches this process through a pipe, possibly after the answer.
      await rekeyed.waitForOutput('cannot decrypt the TOTP secret');
      const rescued = await call(rekeyed.url, '/api/auth/2fa/verify', { json: { mfaToken: login.body.mfaToken, recoveryCode: account.recoveryCodes[9] } });
      expectTokenResponse(rescued, account);
    } finally {
      await rekeyed.stop();
    }
  }, STEP_TIMEOUT);

  it('with TOTP_ENCRYPTION_KEY set, secrets are stored under it: codes work there, and not under the key derived from JWT_SECRET', async () => {
    const keyed = await startAppProcess(setup.fixture().dir, running.env({ TOTP_ENCRYPTION_KEY: ENCRYPTION_KEY }));
    try {
      const account = await enrolled(keyed.url);
      const login = await call(keyed.url, '/api/auth/login', { json: { email: account.email, password: PASSWORD } });
      expect(login.body.mfaRequired).toBe(true);
      expectTokenResponse(await call(keyed.url, '/api/auth/2fa/verify', { json: { mfaToken: login.body.mfaToken, code: await nextCode(account) } }), account);
      // The app without it (the key from JWT_SECRET) cannot read the secret: a fresh right code is refused.
      expectError(await verify({ mfaToken: await mfaToken(account), code: await nextCode(account) }), 401, 'INVALID_CODE');
      await running.app.waitForOutput('cannot decrypt the TOTP secret');
    } finally {
      await keyed.stop();
    }
  }, 2 * STEP_TIMEOUT);

  it('refuses a TOTP_ENCRYPTION_KEY shorter than 32 characters at start-up', async () => {
    const result = await runAppUntilExit(setup.fixture().dir, running.env({ TOTP_ENCRYPTION_KEY: 'too-short' }));
    expect(result.code).toBe(1);
    expect(result.output).toContain('TOTP_ENCRYPTION_KEY');
  });

  it('logs never contain codes, secrets, recovery codes or mfa tokens', async () => {
    const account = await enrolled();
    const token = await mfaToken(account);
    const code = await nextCode(account);
    await verify({ mfaToken: token, code });
    expectCleanLogs(running.app.output(), [account.secret, token, account.recoveryCodes[0]!, code]);
  });

  it('rate limits /2fa/verify per IP with 429 RATE_LIMITED and Retry-After', async () => {
    let attempt = 0;
    await expectRateLimit(running, setup.fixture(), {
      max: 3,
      allowedStatus: 401,
      request: (url) => call(url, '/api/auth/2fa/verify', { json: { mfaToken: `unknown-${attempt++}`, code: '123456' } }),
    });
  });
}

describe('jwt-magic-link-totp fixture', () => {
  const fixture = sqliteFixtureWithChecks('jwt-magic-link-totp');

  describe('the running server (B.8)', () => {
    describeTotpApp({ name: 'jwt-magic-link-totp', fixture });
  });
});
