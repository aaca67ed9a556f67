import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../src/modules/audit/audit-chain.js';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, runAuditVerify, Secrets } from './helpers/audit.js';
import { linkFrom, startTestApp, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

// The events of email and password (B.16 rule 3 with jwt), each through its HTTP route, with who
// did it, to whom, from where; and no password, token or link in any of them.

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp({ BCRYPT_COST: '4' });
});
afterAll(async () => {
  await app.close();
});

const AGENT = 'password-events agent/2.0';

async function register(email = uniqueEmail('password'), password = `passphrase ${Math.random().toString(36).slice(2)}`) {
  secrets.add(password);
  const answer = await call(app, '/api/auth/register', {
    method: 'POST',
    json: { email, password, name: 'Ada' },
    headers: clientHeaders(AGENT),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  secrets.addFrom(answer.body);
  return { email, password, userId: answer.body.user.id as string, token: answer.body.token as string };
}

async function login(email: string, password: string, agent = AGENT) {
  secrets.add(password);
  const answer = await call(app, '/api/auth/login', { method: 'POST', json: { email, password }, headers: clientHeaders(agent) });
  secrets.addFrom(answer.body);
  return answer;
}

/** The token of the link in the newest mail to `email` starting with `prefix`. */
async function mailedToken(email: string, before: number, prefix: string): Promise<string> {
  await waitForMail(app, before + 1);
  const mail = app.mails.slice(before).find((candidate) => candidate.to === email);
  const token = new URL(linkFrom(mail, prefix)).searchParams.get('token')!;
  secrets.add(token);
  return token;
}

async function resetToken(email: string): Promise<string> {
  const before = app.mails.length;
  expect((await call(app, '/api/auth/password/forgot', { method: 'POST', json: { email } })).status).toBe(202);
  return mailedToken(email, before, 'http://app.test/reset-password?token=');
}

describe('sign-up and sign-in', () => {
  it('records a registration and its first sign-in, by the new user, from the request', async () => {
    const { userId } = await register();
    const [registered, signedIn] = await auditRows(app, { targetId: userId });
    expect(registered!.action).toBe('auth.registered');
    expectEvent(registered!, {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      ip: '127.0.0.1',
      userAgent: AGENT,
      metadata: { method: 'password' },
    });
    expect(signedIn!.action).toBe('auth.signed_in');
    expectEvent(signedIn!, {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      ip: '127.0.0.1',
      userAgent: AGENT,
      metadata: { method: 'password', secondFactor: null },
    });
  });

  it('records a password sign-in with its method and session', async () => {
    const { email, password, userId } = await register();
    const answer = await login(email, password, 'second browser');
    expect(answer.status).toBe(200);
    const sessions = await app.context.prisma.session.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
    const events = await auditRows(app, { action: 'auth.signed_in', targetId: userId });
    expect(events).toHaveLength(2);
    expectEvent(events[1]!, {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      userAgent: 'second browser',
      metadata: { method: 'password', sessionId: sessions[1]!.id },
    });
  });

  it("records a wrong password as auth.sign_in_failed against the account, without the attempt's password", async () => {
    const { email, userId } = await register();
    const wrong = await login(email, 'not the password at all');
    expect(wrong.status).toBe(401);
    expectEvent(await onlyEvent(app, 'auth.sign_in_failed', { targetId: userId }), {
      actor: { type: 'user', id: null },
      target: { type: 'user', id: userId },
      ip: '127.0.0.1',
      userAgent: AGENT,
      metadata: { method: 'password', reason: 'invalid_credentials' },
    });
  });

  it('records an unknown address as auth.sign_in_failed with no target, and never the address typed', async () => {
    const before = await app.context.prisma.auditEvent.count();
    const typed = uniqueEmail('nobody');
    const answer = await login(typed, 'whatever was typed here');
    expect(answer.status).toBe(401);
    const rows = await auditRows(app, { seq: { gt: before } });
    expect(rows.map((row) => row.action)).toEqual(['auth.sign_in_failed']);
    expectEvent(rows[0]!, {
      actor: { type: 'user', id: null },
      target: null,
      metadata: { method: 'password', reason: 'invalid_credentials' },
    });
    expect(JSON.stringify(rows[0])).not.toContain(typed);
  });
});

describe('password changes and resets', () => {
  it('records a password change by the user, with the new session it starts', async () => {
    const { password, userId, token } = await register();
    const newPassword = 'a changed passphrase for audit';
    secrets.add(newPassword);
    const changed = await call(app, '/api/auth/password/change', {
      method: 'POST',
      token,
      json: { currentPassword: password, newPassword },
      headers: clientHeaders('change agent'),
    });
    expect(changed.status).toBe(200);
    secrets.addFrom(changed.body);
    expectEvent(await onlyEvent(app, 'password.changed', { targetId: userId }), {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      ip: '127.0.0.1',
      userAgent: 'change agent',
    });
    expect((await auditRows(app, { targetId: userId })).map((row) => row.action)).toEqual([
      'auth.registered',
      'auth.signed_in',
      'password.changed',
      'auth.signed_in',
    ]);
  });

  it('records a reset through the mailed link as password.reset, and a used link as a failed sign-in', async () => {
    const { email, userId } = await register();
    // A verified address: the reset is no take-over.
    await app.context.prisma.user.update({ where: { id: userId }, data: { emailVerified: true } });
    const token = await resetToken(email);
    const password = 'the reset passphrase here';
    secrets.add(password);
    const reset = await call(app, '/api/auth/password/reset', {
      method: 'POST',
      json: { token, password },
      headers: clientHeaders('reset agent'),
    });
    expect(reset.status).toBe(200);
    secrets.addFrom(reset.body);
    expectEvent(await onlyEvent(app, 'password.reset', { targetId: userId }), {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      userAgent: 'reset agent',
    });
    expect(await auditRows(app, { action: 'account.taken_over', targetId: userId })).toEqual([]);

    const before = await app.context.prisma.auditEvent.count();
    const again = await call(app, '/api/auth/password/reset', { method: 'POST', json: { token, password: 'yet another passphrase' } });
    expect(again.status).toBe(401);
    const [failed] = await auditRows(app, { seq: { gt: before } });
    expectEvent(failed!, {
      actor: { type: 'user', id: null },
      target: null,
      metadata: { method: 'password_reset', reason: 'invalid_token' },
    });
  });

  it('records the reset of an unverified account as account.taken_over, then password.reset', async () => {
    const { email, userId } = await register();
    const token = await resetToken(email);
    secrets.add('the owner took it back');
    const reset = await call(app, '/api/auth/password/reset', {
      method: 'POST',
      json: { token, password: 'the owner took it back' },
      headers: clientHeaders('owner agent'),
    });
    expect(reset.status).toBe(200);
    secrets.addFrom(reset.body);
    const actions = (await auditRows(app, { targetId: userId })).map((row) => row.action);
    expect(actions.slice(2)).toEqual(['account.taken_over', 'password.reset', 'auth.signed_in']);
    expectEvent(await onlyEvent(app, 'account.taken_over', { targetId: userId }), {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      userAgent: 'owner agent',
    });
  });

  it('records a verification through the mailed link as email.verified, by the signed-in owner', async () => {
    const { email, userId, token } = await register();
    const before = app.mails.length;
    expect((await call(app, '/api/auth/email/verify/send', { method: 'POST', token })).status).toBe(202);
    const link = await mailedToken(email, before, 'http://app.test/verify-email?token=');
    expect(
      (await call(app, '/api/auth/email/verify', { method: 'POST', token, json: { token: link }, headers: clientHeaders('verify agent') }))
        .status,
    ).toBe(200);
    expectEvent(await onlyEvent(app, 'email.verified', { targetId: userId }), {
      actor: { type: 'user', id: userId },
      target: { type: 'user', id: userId },
      userAgent: 'verify agent',
    });
  });
});

describe('many at once', () => {
  it('40 concurrent sign-ins and 10 failed ones keep one chain with every event in it', async () => {
    const accounts = await Promise.all(Array.from({ length: 10 }, () => register()));
    const before = await app.context.prisma.auditEvent.count();
    const answers = await Promise.all([
      ...accounts.flatMap(({ email, password }) => [1, 2, 3, 4].map(() => login(email, password))),
      ...accounts.map(({ email }) => login(email, 'a wrong guess')),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(40).fill(200), ...Array(10).fill(401)]);
    const added = await auditRows(app, { seq: { gt: before } });
    expect(added.filter((row) => row.action === 'auth.signed_in')).toHaveLength(40);
    expect(added.filter((row) => row.action === 'auth.sign_in_failed')).toHaveLength(10);
    expect(await verifyChain(app.context.prisma)).toEqual({ events: before + 50 });
    const verified = await runAuditVerify(app);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`${before + 50} events`);
  }, 60_000);
});

describe('secrets', () => {
  it('no event holds a password, token, refresh token or mailed link this file sent or received', async () => {
    expect(secrets.size).toBeGreaterThan(40);
    await secrets.expectNoneIn(app);
  });
});
