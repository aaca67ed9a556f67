import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceKey, startServiceStub, now, type ServiceKey, type ServiceStub } from './helpers/service-stub.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

const AUDIENCE = 'https://api.example.test';

let stub: ServiceStub;
let key: ServiceKey;
let app: TestApp;
let issuer: string;
beforeAll(async () => {
  stub = await startServiceStub();
  key = await serviceKey('RS256');
  issuer = `${stub.url}/`;
  stub.answer('/.well-known/openid-configuration', { status: 200, json: { issuer, jwks_uri: `${issuer}.well-known/jwks.json`, userinfo_endpoint: `${issuer}userinfo` } });
  stub.answer('/.well-known/jwks.json', { status: 200, json: { keys: [key.jwk] } });
  // Without the trailing slash, as the dashboard shows the domain.
  app = await startTestApp({ AUTH0_ISSUER_BASE_URL: stub.url, AUTH0_AUDIENCE: AUDIENCE });
});
afterAll(async () => {
  await app.close();
  await stub.close();
});

const accessToken = (sub: string, claims: Record<string, unknown> = {}) =>
  key.sign({ iss: issuer, sub, aud: [AUDIENCE, `${issuer}userinfo`], scope: 'openid profile email', iat: now(), exp: now() + 3600, ...claims });

/** What /userinfo says about the next token (the stub answers every token the same). */
const userinfo = (sub: string, email: string, emailVerified: boolean) =>
  stub.answer('/userinfo', { status: 200, json: { sub, email, email_verified: emailVerified, name: 'Grace Hopper' } });

const exchange = (token: string) => app.request('/api/auth/auth0/exchange', { method: 'POST', headers: { authorization: `Bearer ${token}` } });

describe('POST /api/auth/auth0/exchange', () => {
  it('signs an Auth0 user in with the email /userinfo verified', async () => {
    const email = uniqueEmail('auth0');
    userinfo('auth0|alpha', email, true);
    const token = await accessToken('auth0|alpha');
    const response = await exchange(token);
    expect(response.status).toBe(200);
    expect((await response.json()).user).toMatchObject({ email, emailVerified: true, name: 'Grace Hopper' });
    expect(stub.requests.at(-1)).toMatchObject({ path: '/userinfo', headers: { authorization: `Bearer ${token}` } });
  });

  it('refuses a token for another API, of another tenant, or signed with HS256 (401 INVALID_TOKEN)', async () => {
    userinfo('auth0|beta', uniqueEmail('auth0'), true);
    const tokens = [await accessToken('auth0|beta', { aud: 'https://other.example.test' }), await accessToken('auth0|beta', { iss: 'https://other.auth0.test/' })];
    for (const token of tokens) {
      const response = await exchange(token);
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('INVALID_TOKEN');
    }
  });

  it('never links an address /userinfo does not verify to an existing account (409 ACCOUNT_EXISTS)', async () => {
    const { user } = await createUserWithToken(app, uniqueEmail('auth0'), { emailVerified: true });
    userinfo('auth0|gamma', user.email, false);
    const response = await exchange(await accessToken('auth0|gamma'));
    expect(response.status).toBe(409);
    expect(await app.context.prisma.account.count({ where: { userId: user.id } })).toBe(0);
  });

  it('takes AUTH0_ISSUER_BASE_URL with its trailing slash as well', async () => {
    const withSlash = await startTestApp({ AUTH0_ISSUER_BASE_URL: issuer, AUTH0_AUDIENCE: AUDIENCE });
    try {
      userinfo('auth0|epsilon', uniqueEmail('auth0'), true);
      const response = await withSlash.request('/api/auth/auth0/exchange', { method: 'POST', headers: { authorization: `Bearer ${await accessToken('auth0|epsilon')}` } });
      expect(response.status).toBe(200);
    } finally {
      await withSlash.close();
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when /userinfo fails', async () => {
    stub.answer('/userinfo', { status: 502, json: { error: 'bad_gateway' } });
    const response = await exchange(await accessToken('auth0|delta'));
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe('SERVICE_UNAVAILABLE');
  });
});
