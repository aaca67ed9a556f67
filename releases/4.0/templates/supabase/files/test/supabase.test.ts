import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceKey, startServiceStub, now, type ServiceKey, type ServiceStub } from './helpers/service-stub.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

const ANON_KEY = 'anon-key-of-the-test-project';

let stub: ServiceStub;
let key: ServiceKey;
let app: TestApp;
beforeAll(async () => {
  stub = await startServiceStub();
  key = await serviceKey('ES256');
  stub.answer('/auth/v1/.well-known/jwks.json', { status: 200, json: { keys: [key.jwk] } });
  app = await startTestApp({ SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: ANON_KEY });
});
afterAll(async () => {
  await app.close();
  await stub.close();
});

const claimsOf = (sub: string) => ({ iss: `${stub.url}/auth/v1`, sub, aud: 'authenticated', role: 'authenticated', iat: now(), exp: now() + 3600 });

/** A Supabase user as GET /auth/v1/user answers (the stub answers every token the same). */
function supabaseUser(email: string, fields: Record<string, unknown>): string {
  const id = randomUUID();
  stub.answer('/auth/v1/user', { status: 200, json: { id, aud: 'authenticated', email, user_metadata: { full_name: 'Katherine Johnson' }, ...fields } });
  return id;
}

const exchange = (token: string) => app.request('/api/auth/supabase/exchange', { method: 'POST', headers: { authorization: `Bearer ${token}` } });

describe('POST /api/auth/supabase/exchange', () => {
  it('signs a Supabase user in, verified by email_confirmed_at', async () => {
    const email = uniqueEmail('supabase');
    const id = supabaseUser(email, { email_confirmed_at: new Date().toISOString() });
    const response = await exchange(await key.sign(claimsOf(id)));
    expect(response.status).toBe(200);
    expect((await response.json()).user).toMatchObject({ email, emailVerified: true, name: 'Katherine Johnson' });
    expect(stub.requests.at(-1)?.headers.apikey).toBe(ANON_KEY);
  });

  it('ignores user_metadata.email_verified, which users write themselves (409 ACCOUNT_EXISTS)', async () => {
    const { user } = await createUserWithToken(app, uniqueEmail('supabase'), { emailVerified: true });
    const id = supabaseUser(user.email, { user_metadata: { email_verified: true } });
    const response = await exchange(await key.sign({ ...claimsOf(id), user_metadata: { email_verified: true } }));
    expect(response.status).toBe(409);
    expect(await app.context.prisma.account.count({ where: { userId: user.id } })).toBe(0);
  });

  it('refuses HS256 without SUPABASE_JWT_SECRET, and the anon audience (401 INVALID_TOKEN)', async () => {
    const id = supabaseUser(uniqueEmail('supabase'), { email_confirmed_at: new Date().toISOString() });
    const hs256 = await new SignJWT(claimsOf(id)).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode('a-legacy-secret-the-app-does-not-have'));
    for (const token of [hs256, await key.sign({ ...claimsOf(id), aud: 'anon' })]) {
      const response = await exchange(token);
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe('INVALID_TOKEN');
    }
  });
});
