import { calculatePKCECodeChallenge, randomPKCECodeVerifier } from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerList } from '../src/modules/auth/oauth/provider-list.js';
import { createExchangeCode } from '../src/modules/auth/oauth/one-time-codes.js';
import { safeReturnTo } from '../src/modules/auth/oauth/return-to.js';
import { createUserWithToken, startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('returnTo', () => {
  it('keeps relative paths and turns everything else into /', () => {
    expect(safeReturnTo('/settings?tab=2#top')).toBe('/settings?tab=2#top');
    for (const value of ['//evil.example', 'https://evil.example', '/\\evil.example', 'evil', '/a\nb', undefined, ['/x'], 'javascript:alert(1)']) {
      expect(safeReturnTo(value), JSON.stringify(value)).toBe('/');
    }
  });
});

describe('providers without credentials', () => {
  it('are listed as not configured, and their start answers 404 PROVIDER_NOT_CONFIGURED', async () => {
    const listed = await (await app.request('/api/auth/providers')).json();
    for (const provider of providerList) {
      expect(listed.oauth).toContainEqual({ id: provider.id, name: expect.any(String), configured: false });
      const start = await app.request(`/api/auth/${provider.id}`, { redirect: 'manual' });
      expect(start.status).toBe(404);
      expect((await start.json()).error.code).toBe('PROVIDER_NOT_CONFIGURED');
    }
  });
});

describe('the callback', () => {
  it('without the flow cookie (or with a forged one) sends the browser back with invalid_state', async () => {
    for (const cookie of [undefined, 'gatekit_oauth=forged.value']) {
      const response = await app.request(`/api/auth/${providerList[0]!.id}/callback?code=x&state=y`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('http://app.test/auth/callback?error=invalid_state');
    }
  });
});

describe('POST /api/auth/exchange', () => {
  it('turns a code into a token response once, only with the cookie the callback set, and refuses unknown codes', async () => {
    const { user } = await createUserWithToken(app);
    const code = await createExchangeCode(app.context, user.id, 'github', { cookie: 'browser-secret' });
    const cookie = 'gatekit_oauth_exchange=browser-secret';
    for (const other of [undefined, 'gatekit_oauth_exchange=another-browser']) {
      const refused = await app.request('/api/auth/exchange', { method: 'POST', json: { code }, headers: other ? { cookie: other } : {} });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe('INVALID_TOKEN');
    }
    const first = await app.request('/api/auth/exchange', { method: 'POST', json: { code }, headers: { cookie } });
    expect(first.status).toBe(200);
    expect((await first.json()).user.id).toBe(user.id);
    for (const again of [code, 'unknown-code']) {
      const refused = await app.request('/api/auth/exchange', { method: 'POST', json: { code: again }, headers: { cookie } });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe('INVALID_TOKEN');
    }
  });

  it('binds a code to the verifier of its code challenge instead, for a front end on another site', async () => {
    const { user } = await createUserWithToken(app);
    const verifier = randomPKCECodeVerifier();
    const code = await createExchangeCode(app.context, user.id, 'github', { codeChallenge: await calculatePKCECodeChallenge(verifier) });
    for (const body of [{ code }, { code, codeVerifier: randomPKCECodeVerifier() }]) {
      const refused = await app.request('/api/auth/exchange', { method: 'POST', json: body });
      expect(refused.status).toBe(401);
    }
    const exchanged = await app.request('/api/auth/exchange', { method: 'POST', json: { code, codeVerifier: verifier } });
    expect(exchanged.status).toBe(200);
    expect((await exchanged.json()).user.id).toBe(user.id);
  });
});
