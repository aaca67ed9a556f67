import { jwtVerify, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../src/modules/auth/access-tokens.js';
import { issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { createUserWithToken, startTestApp, testSignIn, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

afterEach(() => {
  vi.useRealTimers();
});

const secret = () => new TextEncoder().encode(app.context.config.JWT_SECRET);

async function expectUnauthenticated(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect((await response.json()).error.code).toBe('UNAUTHENTICATED');
}

describe('the guard', () => {
  it('accepts a valid token', async () => {
    const { user, token } = await createUserWithToken(app);
    const response = await app.request('/api/auth/me', { token });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.user).toEqual({
      id: user.id,
      email: user.email,
      name: null,
      image: null,
      emailVerified: false,
      twoFactorEnabled: false,
      createdAt: user.createdAt.toISOString(),
    });
    // The guard reads the user with SQL: true flags and names must come back as Prisma holds them.
    const verified = await createUserWithToken(app, undefined, { emailVerified: true });
    await app.context.prisma.user.update({ where: { id: verified.user.id }, data: { name: 'Ada', twoFactorEnabled: true } });
    const me = await (await app.request('/api/auth/me', { token: verified.token })).json();
    expect(me.user).toMatchObject({ id: verified.user.id, name: 'Ada', emailVerified: true, twoFactorEnabled: true });
  });

  it('rejects a missing or malformed Authorization header', async () => {
    await expectUnauthenticated(await app.request('/api/auth/me'));
    await expectUnauthenticated(await app.request('/api/auth/me', { headers: { authorization: 'Basic abc' } }));
    const { token } = await createUserWithToken(app);
    await expectUnauthenticated(await app.request('/api/auth/me', { headers: { authorization: token } }));
  });

  it('rejects alg none', async () => {
    const { user } = await createUserWithToken(app);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ sub: user.id, sid: session.id, jti: 'x', iat: now, exp: now + 60, auth_time: now })}.`;
    await expectUnauthenticated(await app.request('/api/auth/me', { headers: { authorization: `Bearer ${unsigned}` } }));
  });

  it('rejects a tampered token', async () => {
    const { token } = await createUserWithToken(app);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    await expectUnauthenticated(await app.request('/api/auth/me', { token: `${header}.${forged}.${signature}` }));
  });

  it('rejects an expired token and one signed with another secret', async () => {
    const { user } = await createUserWithToken(app);
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    const now = Math.floor(Date.now() / 1000);
    const claims = { sid: session.id, auth_time: now - 120 };
    const expired = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(user.id).setJti('expired').setIssuedAt(now - 120).setExpirationTime(now - 60).sign(secret());
    await expectUnauthenticated(await app.request('/api/auth/me', { token: expired }));
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(user.id).setJti('x').setIssuedAt(now).setExpirationTime(now + 60).sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    await expectUnauthenticated(await app.request('/api/auth/me', { token: foreign }));
  });

  it('rejects a token signed with the same secret under another algorithm, and a changed signature', async () => {
    const { token } = await createUserWithToken(app);
    const [, payload, signature] = token.split('.');
    const { createHmac } = await import('node:crypto');
    const resign = (alg: string, hash: string) => {
      const encoded = Buffer.from(JSON.stringify({ alg, typ: 'JWT' })).toString('base64url');
      return `${encoded}.${payload}.${createHmac(hash, app.context.config.JWT_SECRET).update(`${encoded}.${payload}`).digest('base64url')}`;
    };
    await expectUnauthenticated(await app.request('/api/auth/me', { token: resign('HS512', 'sha512') }));
    await expectUnauthenticated(await app.request('/api/auth/me', { token: resign('HS384', 'sha384') }));
    expect((await app.request('/api/auth/me', { token: resign('HS256', 'sha256') })).status).toBe(200);
    const [header] = token.split('.');
    await expectUnauthenticated(await app.request('/api/auth/me', { token: `${header}.${payload}.${signature}A` }));
  });

  it('signs tokens that jose, another RFC 7519 implementation, verifies with the claims the guard reads', async () => {
    const { user } = await createUserWithToken(app);
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    const signed = signAccessToken(app.context.config, session);
    const { payload, protectedHeader } = await jwtVerify(signed.token, secret(), { algorithms: ['HS256'], typ: 'JWT' });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({
      sub: user.id,
      sid: session.id,
      jti: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
      auth_time: Math.floor(session.createdAt.getTime() / 1000),
    });
    expect(payload.exp! - payload.iat!).toBe(app.context.config.JWT_EXPIRES_IN);
    // Access tokens live 15 minutes unless JWT_EXPIRES_IN says otherwise.
    expect(app.context.config.JWT_EXPIRES_IN).toBe(900);
  });

  it('reads the claims of a token jose signs, and refuses one that lacks a claim this app signs', async () => {
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: { jti?: string; exp?: number; sid?: string }) => {
      const { sid = 'session-1' } = claims;
      let jwt = new SignJWT(sid ? { sid, auth_time: now - 60 } : {}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject('user-1').setIssuedAt(now);
      if (claims.jti) jwt = jwt.setJti(claims.jti);
      if (claims.exp) jwt = jwt.setExpirationTime(claims.exp);
      return jwt.sign(secret());
    };
    expect(verifyAccessToken(app.context.config, await sign({ jti: 'token-1', exp: now + 60 }))).toEqual({ userId: 'user-1', sessionId: 'session-1', signedInAt: new Date((now - 60) * 1000) });
    expect(verifyAccessToken(app.context.config, await sign({ jti: 'token-1' }))).toBeUndefined();
    expect(verifyAccessToken(app.context.config, await sign({ jti: 'token-1', exp: now + 60, sid: '' }))).toBeUndefined();
    expect(verifyAccessToken(app.context.config, await sign({ exp: now + 60 }))).toBeUndefined();
  });

  it('checks the signature and the expiry of every token it is shown, each time', () => {
    const config = { ...app.context.config, JWT_EXPIRES_IN: 60 };
    const { token } = signAccessToken(config, { id: 'session-1', userId: 'user-1', createdAt: new Date() });
    expect(verifyAccessToken(config, token)).toMatchObject({ userId: 'user-1', sessionId: 'session-1' });
    expect(verifyAccessToken({ ...config, JWT_SECRET: 'another-secret-another-secret-another-secret' }, token)).toBeUndefined();
    const [header, , signature] = token.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ sub: 'user-2', sid: 'session-1', jti: 'x', iat: 1, exp: 4_102_444_800, auth_time: 1 })).toString('base64url');
    expect(verifyAccessToken(config, `${header}.${forgedPayload}.${signature}`)).toBeUndefined();
    vi.useFakeTimers({ now: Date.now() + 61_000 });
    expect(verifyAccessToken(config, token)).toBeUndefined();
  });

  it('rejects a correctly signed token of a session that does not exist or is not the user\'s', async () => {
    const { user } = await createUserWithToken(app);
    const other = await createUserWithToken(app);
    const othersSession = await app.context.prisma.session.findFirstOrThrow({ where: { userId: other.user.id } });
    const now = Math.floor(Date.now() / 1000);
    const mint = (sid: string) =>
      new SignJWT({ sid, auth_time: now }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(user.id).setJti('minted').setIssuedAt(now).setExpirationTime(now + 60).sign(secret());
    await expectUnauthenticated(await app.request('/api/auth/me', { token: await mint('never-started') }));
    await expectUnauthenticated(await app.request('/api/auth/me', { token: await mint(othersSession.id) }));
  });

  it('rejects the token of an expired session', async () => {
    const { user, token } = await createUserWithToken(app);
    await app.context.prisma.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectUnauthenticated(await app.request('/api/auth/me', { token }));
  });

  it('logout ends only the presented token\'s session', async () => {
    const { user, token } = await createUserWithToken(app);
    const sameUser = await issueTokenResponse(app.context, user, testSignIn);
    const other = await createUserWithToken(app, `other-${user.email}`);
    expect((await app.request('/api/auth/logout', { method: 'POST', token })).status).toBe(204);
    await expectUnauthenticated(await app.request('/api/auth/me', { token }));
    expect((await app.request('/api/auth/me', { token: sameUser.token })).status).toBe(200);
    expect((await app.request('/api/auth/me', { token: other.token })).status).toBe(200);
  });

  it('logout-all ends every session of the user', async () => {
    const { user, token } = await createUserWithToken(app);
    const second = await issueTokenResponse(app.context, user, testSignIn);
    expect((await app.request('/api/auth/logout-all', { method: 'POST', token })).status).toBe(204);
    await expectUnauthenticated(await app.request('/api/auth/me', { token }));
    await expectUnauthenticated(await app.request('/api/auth/me', { token: second.token }));
    expect(await app.context.prisma.session.count({ where: { userId: user.id } })).toBe(0);
  });
});
