import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../src/modules/auth/access-tokens.js';
import { issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, testSignIn, uniqueEmail, type TestApp } from './helpers/test-app.js';

// The events every app can cause (the base's sessions and account routes), each driven through its
// HTTP route: who did it, to whom, from which address (by the TRUST_PROXY rules) and with which
// user agent. The events of sign-in methods and of other modules are tested with those modules.

let app: TestApp;
/** The same app behind one proxy: X-Forwarded-For names the client. */
let proxied: TestApp;
const secrets = new Secrets();

beforeAll(async () => {
  app = await startTestApp({ REFRESH_REUSE_GRACE_SECONDS: '0' });
  proxied = await startTestApp({ TRUST_PROXY: '1' });
});
afterAll(async () => {
  await app.close();
  await proxied.close();
});

/** A signed-in user whose tokens are kept as secrets. */
async function signedIn(target = app) {
  const account = await createUserWithToken(target, uniqueEmail('audit'), { emailVerified: true });
  secrets.add(account.token, account.refreshToken);
  return account;
}

/** Another session of the same user, as a second device's sign-in. */
async function anotherSession(target: TestApp, userId: string) {
  const user = await target.context.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const issued = await issueTokenResponse(target.context, user, { ...testSignIn, userAgent: 'second device' });
  secrets.add(issued.token, issued.refreshToken);
  const sessionId = (await verifyAccessToken(target.context, issued.token))!.sessionId;
  return { ...issued, sessionId };
}

const sessionIdOf = async (target: TestApp, token: string) => (await verifyAccessToken(target.context, token))!.sessionId;

describe('the events of the sessions and account routes', () => {
  it('records a sign-in with its method, session, address and user agent', async () => {
    const { user } = await signedIn();
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    expectEvent(await onlyEvent(app, 'auth.signed_in', { targetId: user.id }), {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      ip: testSignIn.ip,
      userAgent: testSignIn.userAgent,
      metadata: { method: 'password', sessionId: session.id },
    });
  });

  it('records POST /api/auth/logout as auth.signed_out by the user, naming the session, from the request', async () => {
    const { user, token } = await signedIn();
    const sessionId = await sessionIdOf(app, token);
    expect((await call(app, '/api/auth/logout', { method: 'POST', token, headers: clientHeaders('logout agent/1.0') })).status).toBe(204);
    expectEvent(await onlyEvent(app, 'auth.signed_out', { targetId: user.id }), {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      ip: '127.0.0.1',
      userAgent: 'logout agent/1.0',
      metadata: { sessionId },
    });
  });

  it('records POST /api/auth/logout-all as auth.signed_out everywhere', async () => {
    const { user, token } = await signedIn();
    await anotherSession(app, user.id);
    expect((await call(app, '/api/auth/logout-all', { method: 'POST', token, headers: clientHeaders('logout-all agent') })).status).toBe(
      204,
    );
    expectEvent(await onlyEvent(app, 'auth.signed_out', { targetId: user.id }), {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      userAgent: 'logout-all agent',
      metadata: { everywhere: true },
    });
  });

  it('records ending one session from the device list, and ending the others, as session.ended', async () => {
    const { user, token } = await signedIn();
    const other = await anotherSession(app, user.id);
    const third = await anotherSession(app, user.id);
    const one = await call(app, `/api/auth/sessions/${other.sessionId}`, {
      method: 'DELETE',
      token,
      headers: clientHeaders('device list'),
    });
    expect(one.status).toBe(204);
    expectEvent(await onlyEvent(app, 'session.ended', { targetId: user.id }), {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      userAgent: 'device list',
      metadata: { sessionId: other.sessionId },
    });
    expect((await call(app, '/api/auth/sessions/revoke-others', { method: 'POST', token })).status).toBe(204);
    const ended = await auditRows(app, { action: 'session.ended', targetId: user.id });
    expect(ended).toHaveLength(2);
    expect(JSON.parse(ended[1]!.metadata)).toEqual({ otherSessions: 1 });
    expect((await call(app, '/api/auth/me', { token: third.token })).status).toBe(401);
  });

  it("records nothing for ending another user's session (404): the attempt changed nothing", async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    const before = await app.context.prisma.auditEvent.count();
    const refused = await call(app, `/api/auth/sessions/${await sessionIdOf(app, victim.token)}`, {
      method: 'DELETE',
      token: attacker.token,
    });
    expect(refused.status).toBe(404);
    expect(await app.context.prisma.auditEvent.count()).toBe(before);
    expect(await auditRows(app, { action: 'session.ended', targetId: victim.user.id })).toEqual([]);
  });

  it('records a used refresh token that comes back as session.refresh_reuse_detected, by the app itself', async () => {
    const { user, refreshToken } = await signedIn();
    const sessionId = (await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } })).id;
    const rotated = await call(app, '/api/auth/refresh', { method: 'POST', json: { refreshToken } });
    expect(rotated.status).toBe(200);
    secrets.addFrom(rotated.body);
    // REFRESH_REUSE_GRACE_SECONDS=0: the old token presented again is a stolen copy.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const replay = await call(app, '/api/auth/refresh', { method: 'POST', json: { refreshToken }, headers: clientHeaders('thief agent') });
    expect(replay.status).toBe(401);
    expectEvent(await onlyEvent(app, 'session.refresh_reuse_detected', { targetId: user.id }), {
      actor: { type: 'system', id: null },
      target: { type: 'user', id: user.id },
      ip: '127.0.0.1',
      userAgent: 'thief agent',
      metadata: { sessionId },
    });
    // A plain refresh is no security event.
    expect(await auditRows(app, { targetId: user.id, action: { notIn: ['auth.signed_in', 'session.refresh_reuse_detected'] } })).toEqual(
      [],
    );
  });

  it('records an export as account.exported, and the export holds the user’s own events', async () => {
    const { user, token } = await signedIn();
    const exported = await call(app, '/api/auth/account/export', { token, headers: clientHeaders('export agent') });
    expect(exported.status).toBe(200);
    expectEvent(await onlyEvent(app, 'account.exported', { targetId: user.id }), {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      userAgent: 'export agent',
    });
    expect(exported.body.activity.map((event: { action: string }) => event.action)).toEqual(['auth.signed_in']);
  });

  it('records a deletion as account.deleted, and keeps the event after the user is gone', async () => {
    const { user, token } = await signedIn();
    const deleted = await call(app, '/api/auth/account', {
      method: 'DELETE',
      token,
      json: { confirm: user.email },
      headers: clientHeaders('delete agent'),
    });
    expect(deleted.status).toBe(204);
    expect(await app.context.prisma.user.count({ where: { id: user.id } })).toBe(0);
    expectEvent(await onlyEvent(app, 'account.deleted', { targetId: user.id }), {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      userAgent: 'delete agent',
    });
    expect((await auditRows(app, { targetId: user.id })).map((row) => row.action)).toEqual(['auth.signed_in', 'account.deleted']);
  });

  it('records the user agent cut to 256 characters, and none when the request sends none', async () => {
    const first = await signedIn();
    const long = `agent ${'x'.repeat(400)}`;
    expect((await call(app, '/api/auth/logout', { method: 'POST', token: first.token, headers: { 'user-agent': long } })).status).toBe(204);
    expect((await onlyEvent(app, 'auth.signed_out', { targetId: first.user.id })).userAgent).toBe(long.slice(0, 256));
    const second = await signedIn();
    expect((await call(app, '/api/auth/logout', { method: 'POST', token: second.token, headers: { 'user-agent': '' } })).status).toBe(204);
    expect((await onlyEvent(app, 'auth.signed_out', { targetId: second.user.id })).userAgent).toBeNull();
  });
});

describe('the address by the TRUST_PROXY rules', () => {
  it('ignores X-Forwarded-For when no proxy is trusted: a client cannot pick its own address', async () => {
    const { user, token } = await signedIn();
    expect((await call(app, '/api/auth/logout', { method: 'POST', token, headers: clientHeaders('spoofer', '203.0.113.66') })).status).toBe(
      204,
    );
    expect((await onlyEvent(app, 'auth.signed_out', { targetId: user.id })).ip).toBe('127.0.0.1');
  });

  it('takes the address the trusted proxy saw (the last hop), never one the client added in front', async () => {
    const { user, token } = await signedIn(proxied);
    const logout = await call(proxied, '/api/auth/logout', {
      method: 'POST',
      token,
      headers: clientHeaders('behind a proxy', '198.51.100.7, 203.0.113.5'),
    });
    expect(logout.status).toBe(204);
    expect((await onlyEvent(proxied, 'auth.signed_out', { targetId: user.id })).ip).toBe('203.0.113.5');
  });
});

describe('secrets', () => {
  it('no event holds a token or refresh token this file sent or received', async () => {
    expect(secrets.size).toBeGreaterThan(10);
    await secrets.expectNoneIn(app);
    await secrets.expectNoneIn(proxied);
  });
});
