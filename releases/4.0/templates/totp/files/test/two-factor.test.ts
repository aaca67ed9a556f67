import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../src/generated/prisma/client.js';
import { completeLogin, issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { hashToken } from '../src/modules/auth/one-time-tokens.js';
import { openSecret, sealSecret } from '../src/modules/auth/two-factor/secret-box.js';
import { createUserWithToken, olderToken, startTestApp, testSignIn, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

// RFC 6238 written out with node:crypto, independent of the library the app uses.
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
}

function totpAt(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const currentStep = () => Math.floor(Date.now() / 30_000);

interface Enrolled {
  user: User;
  token: string;
  secret: string;
  recoveryCodes: string[];
  lastStep: number;
}

/** A code of a later time step than the last one used, within the ±1 step the server accepts. */
function nextCode(account: Enrolled): string {
  const step = Math.max(account.lastStep + 1, currentStep());
  if (step > currentStep() + 1) throw new Error('no unused time step in the window; use a fresh user');
  account.lastStep = step;
  return totpAt(account.secret, step);
}

/** A six-digit code that matches none of the steps the server would accept now. */
function wrongCode(secret: string): string {
  const valid = new Set([-1, 0, 1, 2].map((delta) => totpAt(secret, currentStep() + delta)));
  for (let value = 0; ; value++) {
    const candidate = String(value).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

async function enrol(): Promise<Enrolled> {
  const { user, token } = await createUserWithToken(app, uniqueEmail(), { emailVerified: true });
  const setup = await app.request('/api/auth/2fa/setup', { method: 'POST', token });
  expect(setup.status).toBe(200);
  const { secret } = await setup.json();
  const account: Enrolled = { user, token, secret, recoveryCodes: [], lastStep: -1 };
  const enabled = await app.request('/api/auth/2fa/enable', { method: 'POST', token, json: { code: nextCode(account) } });
  expect(enabled.status).toBe(200);
  account.recoveryCodes = (await enabled.json()).recoveryCodes;
  return account;
}

/** The first factor, whichever it is, ends in completeLogin. */
async function firstFactor(account: Enrolled): Promise<string> {
  const user = await app.context.prisma.user.findUniqueOrThrow({ where: { id: account.user.id } });
  const result = await completeLogin(app.context, user, testSignIn);
  expect(result).toEqual({ mfaRequired: true, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
  if (!('mfaToken' in result)) throw new Error('expected an mfa answer');
  return result.mfaToken;
}

const verify = (json: object) => app.request('/api/auth/2fa/verify', { method: 'POST', json });

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect((await response.json()).error.code).toBe(code);
}

describe('setup and enable', () => {
  it('gives a secret, an otpauth URL and a QR code, and stores the secret encrypted', async () => {
    const { user, token } = await createUserWithToken(app, uniqueEmail(), { emailVerified: true });
    const response = await app.request('/api/auth/2fa/setup', { method: 'POST', token });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(body.otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(url.searchParams.get('secret')).toBe(body.secret);
    expect(decodeURIComponent(url.pathname)).toContain(user.email);
    expect(body.qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
    const row = await app.context.prisma.twoFactorSecret.findUniqueOrThrow({ where: { userId: user.id } });
    expect(row.encryptedSecret).not.toContain(body.secret);
    expect(row.enabledAt).toBeNull();
    expect((await (await app.request('/api/auth/me', { token })).json()).user.twoFactorEnabled).toBe(false);
  });

  it('enables only with a right code, and returns ten recovery codes stored as hashes', async () => {
    const { user, token } = await createUserWithToken(app, uniqueEmail(), { emailVerified: true });
    const { secret } = await (await app.request('/api/auth/2fa/setup', { method: 'POST', token })).json();
    await expectError(await app.request('/api/auth/2fa/enable', { method: 'POST', token, json: { code: wrongCode(secret) } }), 401, 'INVALID_CODE');
    await expectError(await app.request('/api/auth/2fa/enable', { method: 'POST', token, json: { code: 'abc' } }), 400, 'VALIDATION_ERROR');
    const enabled = await app.request('/api/auth/2fa/enable', { method: 'POST', token, json: { code: totpAt(secret, currentStep()) } });
    expect(enabled.status).toBe(200);
    const { recoveryCodes } = await enabled.json();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const stored = await app.context.prisma.recoveryCode.findMany({ where: { userId: user.id } });
    expect(stored).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(recoveryCodes[0]);
    expect((await (await app.request('/api/auth/me', { token })).json()).user.twoFactorEnabled).toBe(true);
    await expectError(await app.request('/api/auth/2fa/setup', { method: 'POST', token }), 403, 'FORBIDDEN');
  });
});

describe('who may turn it on', () => {
  it('refuses an account whose email is not verified (403 EMAIL_NOT_VERIFIED)', async () => {
    const { token } = await createUserWithToken(app);
    await expectError(await app.request('/api/auth/2fa/setup', { method: 'POST', token }), 403, 'EMAIL_NOT_VERIFIED');
    await expectError(await app.request('/api/auth/2fa/enable', { method: 'POST', token, json: { code: '123456' } }), 403, 'EMAIL_NOT_VERIFIED');
  });

  it('needs a recent sign-in for every change (403 REAUTH_REQUIRED)', async () => {
    const account = await enrol();
    const old = await olderToken(app, account.user, app.context.config.REAUTH_MAX_AGE_MINUTES + 1);
    expect((await app.request('/api/auth/me', { token: old })).status).toBe(200);
    for (const [path, json] of [
      ['/api/auth/2fa/setup', undefined],
      ['/api/auth/2fa/enable', { code: '123456' }],
      ['/api/auth/2fa/disable', { code: '123456' }],
      ['/api/auth/2fa/recovery-codes', { code: '123456' }],
    ] as const) {
      await expectError(await app.request(path, { method: 'POST', token: old, json }), 403, 'REAUTH_REQUIRED');
    }
    const fresh = await olderToken(app, account.user, app.context.config.REAUTH_MAX_AGE_MINUTES - 1);
    expect((await app.request('/api/auth/2fa/recovery-codes', { method: 'POST', token: fresh, json: { code: nextCode(account) } })).status).toBe(200);
  });

  it('counts the session\'s sign-in, not its last refresh', async () => {
    const account = await enrol();
    const signedIn = await issueTokenResponse(app.context, account.user, testSignIn);
    const signedInAt = new Date(Date.now() - (app.context.config.REAUTH_MAX_AGE_MINUTES + 1) * 60_000);
    const { sid } = JSON.parse(Buffer.from(signedIn.token.split('.')[1]!, 'base64url').toString());
    await app.context.prisma.session.update({ where: { id: sid }, data: { createdAt: signedInAt } });
    const refreshed = await app.request('/api/auth/refresh', { method: 'POST', json: { refreshToken: signedIn.refreshToken } });
    expect(refreshed.status).toBe(200);
    const { token } = await refreshed.json();
    await expectError(await app.request('/api/auth/2fa/recovery-codes', { method: 'POST', token, json: { code: '123456' } }), 403, 'REAUTH_REQUIRED');
  });
});

describe('signing in with a second factor', () => {
  it('answers every first factor with mfaRequired, and the mfaToken is no access token', async () => {
    const account = await enrol();
    const mfaToken = await firstFactor(account);
    await expectError(await app.request('/api/auth/me', { token: mfaToken }), 401, 'UNAUTHENTICATED');
  });

  it('signs in with a code, and the same code never works twice', async () => {
    const account = await enrol();
    const code = nextCode(account);
    const response = await verify({ mfaToken: await firstFactor(account), code });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ tokenType: 'Bearer', refreshToken: expect.any(String), user: { id: account.user.id, twoFactorEnabled: true } });
    expect((await app.request('/api/auth/me', { token: body.token })).status).toBe(200);
    await expectError(await verify({ mfaToken: await firstFactor(account), code }), 401, 'INVALID_CODE');
    // The session is named for the first factor, and started only now: the mfa answer started none.
    const { sessions } = await (await app.request('/api/auth/sessions', { token: body.token })).json();
    expect(sessions.find((session: { current: boolean }) => session.current)).toMatchObject({ method: testSignIn.method });
  });

  it('signs in with a recovery code, once', async () => {
    const account = await enrol();
    const recoveryCode = account.recoveryCodes[0]!;
    expect((await verify({ mfaToken: await firstFactor(account), recoveryCode: recoveryCode.toUpperCase() })).status).toBe(200);
    await expectError(await verify({ mfaToken: await firstFactor(account), recoveryCode }), 401, 'INVALID_CODE');
  });

  it('allows five attempts per mfaToken: the sixth fails even with the right code', async () => {
    const account = await enrol();
    const mfaToken = await firstFactor(account);
    for (let attempt = 0; attempt < 5; attempt++) {
      await expectError(await verify({ mfaToken, code: wrongCode(account.secret) }), 401, 'INVALID_CODE');
    }
    const code = nextCode(account);
    await expectError(await verify({ mfaToken, code }), 401, 'INVALID_TOKEN');
    expect((await verify({ mfaToken: await firstFactor(account), code })).status).toBe(200);
  });

  it('refuses an expired, unknown or used mfaToken', async () => {
    const account = await enrol();
    const expired = await firstFactor(account);
    await app.context.prisma.twoFactorChallenge.update({ where: { tokenHash: hashToken(expired) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectError(await verify({ mfaToken: expired, code: nextCode(account) }), 401, 'INVALID_TOKEN');
    await expectError(await verify({ mfaToken: 'not-a-token', code: '123456' }), 401, 'INVALID_TOKEN');
    const used = await firstFactor(account);
    expect((await verify({ mfaToken: used, recoveryCode: account.recoveryCodes[1] })).status).toBe(200);
    await expectError(await verify({ mfaToken: used, recoveryCode: account.recoveryCodes[2] }), 401, 'INVALID_TOKEN');
  });

  it('locks the account after 10 wrong codes over any mfa tokens, right code or not, and mails the owner', async () => {
    const account = await enrol();
    const before = app.mails.length;
    for (let attempt = 1; attempt <= 10; attempt++) {
      const mfaToken = await firstFactor(account);
      const guess = attempt % 2 ? { code: wrongCode(account.secret) } : { recoveryCode: 'not-a-recovery-code' };
      await expectError(await verify({ mfaToken, ...guess }), 401, 'INVALID_CODE');
    }
    const locked = await verify({ mfaToken: await firstFactor(account), code: nextCode(account) });
    expect(locked.status).toBe(429);
    expect((await locked.json()).error.code).toBe('RATE_LIMITED');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    const mail = await waitForMail(app, before + 1);
    expect(mail.to).toBe(account.user.email);
    expect(mail.subject).toMatch(/paused/);
  });

  it('counts wrong codes at disable and recovery-codes too, and locks all three routes', async () => {
    const account = await enrol();
    const post = (path: string, json: Record<string, string>) => app.request(path, { method: 'POST', token: account.token, json });
    for (let attempt = 1; attempt <= 10; attempt++) {
      const reply =
        attempt % 3 === 0
          ? await verify({ mfaToken: await firstFactor(account), code: wrongCode(account.secret) })
          : attempt % 3 === 1
            ? await post('/api/auth/2fa/disable', attempt % 2 ? { code: wrongCode(account.secret) } : { recoveryCode: 'not-a-recovery-code' })
            : await post('/api/auth/2fa/recovery-codes', { code: wrongCode(account.secret) });
      await expectError(reply, 401, 'INVALID_CODE');
    }
    const right = nextCode(account);
    for (const locked of [
      await post('/api/auth/2fa/disable', { code: right }),
      await post('/api/auth/2fa/disable', { recoveryCode: account.recoveryCodes[0]! }),
      await post('/api/auth/2fa/recovery-codes', { code: right }),
      await verify({ mfaToken: await firstFactor(account), code: right }),
    ]) {
      expect(locked.status).toBe(429);
      expect((await locked.json()).error.code).toBe('RATE_LIMITED');
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    }
    const user = await app.context.prisma.user.findUniqueOrThrow({ where: { id: account.user.id } });
    expect(user.twoFactorEnabled).toBe(true);
  });

  it('voids pending mfa tokens when every session is revoked', async () => {
    const account = await enrol();
    const mfaToken = await firstFactor(account);
    expect((await app.request('/api/auth/logout-all', { method: 'POST', token: account.token })).status).toBe(204);
    await expectError(await verify({ mfaToken, code: nextCode(account) }), 401, 'INVALID_TOKEN');
  });

  it('needs exactly one of code and recoveryCode', async () => {
    const account = await enrol();
    const mfaToken = await firstFactor(account);
    await expectError(await verify({ mfaToken }), 400, 'VALIDATION_ERROR');
    await expectError(await verify({ mfaToken, code: '123456', recoveryCode: 'x' }), 400, 'VALIDATION_ERROR');
  });
});

describe('managing two-factor authentication', () => {
  it('replaces the recovery codes: the old ones stop working', async () => {
    const account = await enrol();
    const response = await app.request('/api/auth/2fa/recovery-codes', { method: 'POST', token: account.token, json: { code: nextCode(account) } });
    expect(response.status).toBe(200);
    const { recoveryCodes } = await response.json();
    expect(recoveryCodes).toHaveLength(10);
    await expectError(await verify({ mfaToken: await firstFactor(account), recoveryCode: account.recoveryCodes[0] }), 401, 'INVALID_CODE');
    expect((await verify({ mfaToken: await firstFactor(account), recoveryCode: recoveryCodes[0] })).status).toBe(200);
  });

  it('disables with a code and revokes earlier tokens', async () => {
    const account = await enrol();
    await expectError(
      await app.request('/api/auth/2fa/disable', { method: 'POST', token: account.token, json: { code: wrongCode(account.secret) } }),
      401,
      'INVALID_CODE',
    );
    const response = await app.request('/api/auth/2fa/disable', { method: 'POST', token: account.token, json: { code: nextCode(account) } });
    expect(response.status).toBe(200);
    expect((await response.json()).user).toMatchObject({ id: account.user.id, twoFactorEnabled: false });
    await expectError(await app.request('/api/auth/me', { token: account.token }), 401, 'UNAUTHENTICATED');
    expect(await app.context.prisma.session.count({ where: { userId: account.user.id } })).toBe(0);
    const user = await app.context.prisma.user.findUniqueOrThrow({ where: { id: account.user.id } });
    expect(await completeLogin(app.context, user, testSignIn)).toHaveProperty('token');
  });

  it('disables with a recovery code when the device is lost', async () => {
    const account = await enrol();
    const response = await app.request('/api/auth/2fa/disable', { method: 'POST', token: account.token, json: { recoveryCode: account.recoveryCodes[3] } });
    expect(response.status).toBe(200);
  });
});

describe('secret encryption', () => {
  it('binds each secret to its user and key', () => {
    const config = app.context.config;
    const sealed = sealSecret(config, 'user-a', 'JBSWY3DPEHPK3PXP');
    expect(openSecret(config, 'user-a', sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(openSecret(config, 'user-b', sealed)).toBeUndefined();
    expect(openSecret({ ...config, TOTP_ENCRYPTION_KEY: 'another-key-that-is-at-least-32-characters' }, 'user-a', sealed)).toBeUndefined();
  });
});
