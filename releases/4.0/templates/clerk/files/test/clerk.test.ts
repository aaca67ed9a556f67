import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { serviceKey, startServiceStub, now, type ServiceKey, type ServiceStub } from './helpers/service-stub.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

const ISSUER = 'https://clerk.test';
const SECRET_KEY = 'sk_test_clerk-exchange-tests';

let stub: ServiceStub;
let key: ServiceKey;
let app: TestApp;
beforeAll(async () => {
  stub = await startServiceStub();
  key = await serviceKey('RS256', 'ins_test');
  app = await startTestApp({
    CLERK_SECRET_KEY: SECRET_KEY,
    CLERK_JWT_KEY: key.pem,
    CLERK_ISSUER: ISSUER,
    CLERK_AUTHORIZED_PARTIES: 'http://app.test',
    CLERK_API_URL: stub.url,
  });
});
afterAll(async () => {
  await app.close();
  await stub.close();
});

let users = 0;
/** A user at the stub's Backend API, whose primary address has the given status. */
function clerkUser(email: string, status: 'verified' | 'unverified'): string {
  const id = `user_test${++users}`;
  stub.answer(`/v1/users/${id}`, {
    status: 200,
    json: { id, first_name: 'Ada', last_name: 'Lovelace', primary_email_address_id: 'idn_1', email_addresses: [{ id: 'idn_1', email_address: email, verification: { status } }] },
  });
  return id;
}

const sessionToken = (sub: string, claims: Record<string, unknown> = {}) =>
  key.sign({ iss: ISSUER, sub, azp: 'http://app.test', sid: 'sess_test', iat: now(), nbf: now() - 10, exp: now() + 60, ...claims });

const exchange = (target: TestApp, token: string) => target.request('/api/auth/clerk/exchange', { method: 'POST', headers: { authorization: `Bearer ${token}` } });

describe('POST /api/auth/clerk/exchange', () => {
  it('signs a Clerk user in with the address Clerk verified, and the same user again', async () => {
    const email = uniqueEmail('clerk');
    const id = clerkUser(email, 'verified');
    const first = await exchange(app, await sessionToken(id));
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toMatchObject({ tokenType: 'Bearer', user: { email, emailVerified: true, name: 'Ada Lovelace' } });
    expect(stub.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    const again = await (await exchange(app, await sessionToken(id))).json();
    expect(again.user.id).toBe(body.user.id);
  });

  it('refuses a token of another issuer or for another front end (401 INVALID_TOKEN)', async () => {
    const id = clerkUser(uniqueEmail('clerk'), 'verified');
    for (const claims of [{ iss: 'https://other.clerk.test' }, { azp: 'http://evil.test' }, { exp: now() - 60 }]) {
      const response = await exchange(app, await sessionToken(id, claims));
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('INVALID_TOKEN');
    }
  });

  it('refuses a token issued in the future or living longer than an hour (401 INVALID_TOKEN)', async () => {
    const id = clerkUser(uniqueEmail('clerk'), 'verified');
    const tenYears = 10 * 365 * 24 * 3600;
    for (const claims of [{ iat: now() + 120, nbf: now() - 10, exp: now() + 180 }, { iat: now() - 10, exp: now() + tenYears }, { iat: now() - 10, exp: now() + 3600 }]) {
      const response = await exchange(app, await sessionToken(id, claims));
      expect(response.status, JSON.stringify(claims)).toBe(401);
      expect((await response.json()).error.code).toBe('INVALID_TOKEN');
    }
    expect((await exchange(app, await sessionToken(id, { iat: now() - 10, exp: now() + 3590 }))).status).toBe(200);
  });

  it('never links an unverified primary address to an existing account (409 ACCOUNT_EXISTS)', async () => {
    const { user } = await createUserWithToken(app, uniqueEmail('clerk'), { emailVerified: true });
    const response = await exchange(app, await sessionToken(clerkUser(user.email, 'unverified')));
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('ACCOUNT_EXISTS');
    expect(await app.context.prisma.account.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe('configuration', () => {
  it('answers 404 PROVIDER_NOT_CONFIGURED while the Clerk variables are empty', async () => {
    const bare = await startTestApp();
    try {
      const response = await exchange(bare, 'a.b.c');
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('PROVIDER_NOT_CONFIGURED');
    } finally {
      await bare.close();
    }
  });

  it('refuses a CLERK_JWT_KEY that Clerk cannot use, naming the variable', async () => {
    const ec = await serviceKey('ES256');
    expect(() => loadConfig({ DATABASE_URL: 'file:./x.db', JWT_SECRET: 'x'.repeat(32), CLERK_JWT_KEY: ec.pem })).toThrow(/CLERK_JWT_KEY/);
  });
});
