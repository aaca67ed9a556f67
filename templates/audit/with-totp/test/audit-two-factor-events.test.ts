import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin } from '../src/modules/auth/complete-login.js';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, testSignIn, uniqueEmail, type TestApp } from './helpers/test-app.js';

// Two-factor events (B.16 rule 3 with totp): enabled, new recovery codes, disabled, and the second
// step of a sign-in, passed or refused; no secret, code or recovery code in any of them.

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

// RFC 6238, written out with node:crypto.
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
  userId: string;
  token: string;
  secret: string;
  recoveryCodes: string[];
  lastStep: number;
}

/** A code of a time step not used yet, within the window the server accepts. */
function nextCode(account: Enrolled): string {
  const step = Math.max(account.lastStep + 1, currentStep());
  if (step > currentStep() + 1) throw new Error('no unused time step in the window; use a fresh user');
  account.lastStep = step;
  const code = totpAt(account.secret, step);
  secrets.add(code);
  return code;
}

function wrongCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((delta) => totpAt(secret, currentStep() + delta)));
  for (let value = 0; ; value++) {
    const candidate = String(value).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

async function enrol(): Promise<Enrolled> {
  const { user, token, refreshToken } = await createUserWithToken(app, uniqueEmail('totp'), { emailVerified: true });
  secrets.add(token, refreshToken);
  const setup = await call(app, '/api/auth/2fa/setup', { method: 'POST', token });
  expect(setup.status).toBe(200);
  secrets.addFrom(setup.body);
  const account: Enrolled = { userId: user.id, token, secret: setup.body.secret, recoveryCodes: [], lastStep: -1 };
  const enabled = await call(app, '/api/auth/2fa/enable', {
    method: 'POST',
    token,
    json: { code: nextCode(account) },
    headers: clientHeaders('enable agent'),
  });
  expect(enabled.status).toBe(200);
  secrets.addFrom(enabled.body);
  account.recoveryCodes = enabled.body.recoveryCodes;
  return account;
}

/** The first factor (whichever it is ends in completeLogin): the mfa token for the second step. */
async function mfaToken(account: Enrolled): Promise<string> {
  const user = await app.context.prisma.user.findUniqueOrThrow({ where: { id: account.userId } });
  const result = await completeLogin(app.context, user, testSignIn);
  if (!('mfaToken' in result)) throw new Error('expected an mfa answer');
  secrets.add(result.mfaToken);
  return result.mfaToken;
}

describe('two-factor events', () => {
  it('records enabling, new recovery codes and disabling, by the user', async () => {
    const account = await enrol();
    const byUser = { type: 'user', id: account.userId };
    const target = { type: 'user', id: account.userId };
    expectEvent(await onlyEvent(app, 'two_factor.enabled', { targetId: account.userId }), {
      actor: byUser,
      target,
      ip: '127.0.0.1',
      userAgent: 'enable agent',
    });
    const renewed = await call(app, '/api/auth/2fa/recovery-codes', {
      method: 'POST',
      token: account.token,
      json: { code: nextCode(account) },
    });
    expect(renewed.status).toBe(200);
    secrets.addFrom(renewed.body);
    expectEvent(await onlyEvent(app, 'two_factor.recovery_codes_created', { targetId: account.userId }), { actor: byUser, target });
    const disabled = await call(app, '/api/auth/2fa/disable', {
      method: 'POST',
      token: account.token,
      json: { recoveryCode: renewed.body.recoveryCodes[0] },
      headers: clientHeaders('disable agent'),
    });
    expect(disabled.status).toBe(200);
    secrets.addFrom(disabled.body);
    expectEvent(await onlyEvent(app, 'two_factor.disabled', { targetId: account.userId }), {
      actor: byUser,
      target,
      userAgent: 'disable agent',
    });
  });

  it('records a wrong code at the second step as a failed sign-in against the account, and the right one as a sign-in with its second factor', async () => {
    const account = await enrol();
    const token = await mfaToken(account);
    const wrong = await call(app, '/api/auth/2fa/verify', {
      method: 'POST',
      json: { mfaToken: token, code: wrongCode(account.secret) },
      headers: clientHeaders('second step'),
    });
    expect(wrong.status).toBe(401);
    expectEvent(await onlyEvent(app, 'auth.sign_in_failed', { targetId: account.userId }), {
      actor: { type: 'user', id: null },
      target: { type: 'user', id: account.userId },
      userAgent: 'second step',
      metadata: { method: 'second_factor', reason: 'invalid_code' },
    });
    const passed = await call(app, '/api/auth/2fa/verify', {
      method: 'POST',
      json: { mfaToken: token, code: nextCode(account) },
      headers: clientHeaders('second step'),
    });
    expect(passed.status).toBe(200);
    secrets.addFrom(passed.body);
    const signedIn = (await auditRows(app, { action: 'auth.signed_in', targetId: account.userId })).at(-1)!;
    expectEvent(signedIn, {
      actor: { type: 'user', id: account.userId },
      target: { type: 'user', id: account.userId },
      userAgent: 'second step',
      metadata: { method: 'password', secondFactor: 'totp' },
    });
  });

  it('records a sign-in completed with a recovery code as such', async () => {
    const account = await enrol();
    const passed = await call(app, '/api/auth/2fa/verify', {
      method: 'POST',
      json: { mfaToken: await mfaToken(account), recoveryCode: account.recoveryCodes[1] },
    });
    expect(passed.status).toBe(200);
    secrets.addFrom(passed.body);
    const signedIn = (await auditRows(app, { action: 'auth.signed_in', targetId: account.userId })).at(-1)!;
    expect(JSON.parse(signedIn.metadata)).toMatchObject({ secondFactor: 'recovery_code' });
  });
});

describe('secrets', () => {
  it('no event holds a TOTP secret, otpauth URL, code, recovery code or mfa token this file saw', async () => {
    expect(secrets.size).toBeGreaterThan(30);
    await secrets.expectNoneIn(app);
  });
});
