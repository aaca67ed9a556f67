import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { relyingParty } from '../src/modules/auth/passkey/relying-party.js';
import { createUserWithToken, startTestApp, type TestApp } from './helpers/test-app.js';

const env = (extra: Record<string, string>) => ({
  DATABASE_URL: 'file:./test.db',
  JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
  ...extra,
});

describe('the relying party (WEBAUTHN_*)', () => {
  it('defaults to the host name and origin of APP_URL', () => {
    expect(relyingParty(loadConfig(env({ APP_URL: 'https://app.example.com:8443/' })))).toMatchObject({
      id: 'app.example.com',
      origins: ['https://app.example.com:8443'],
    });
  });

  it('takes a parent domain and several origins on it', () => {
    const rp = relyingParty(
      loadConfig(env({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://app.example.com, https://www.example.com' })),
    );
    expect(rp).toMatchObject({ id: 'example.com', origins: ['https://app.example.com', 'https://www.example.com'] });
  });

  it.each([
    [{ APP_URL: 'http://127.0.0.1:3000' }, /WEBAUTHN_RP_ID .*IP address/],
    [{ WEBAUTHN_RP_ID: '10.0.0.1' }, /WEBAUTHN_RP_ID must be a domain name/],
    [{ WEBAUTHN_RP_ID: 'com', WEBAUTHN_ORIGINS: 'https://example.com' }, /WEBAUTHN_RP_ID must be a registrable domain name/],
    [
      { WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.com,https://evil.test' },
      /https:\/\/evil\.test is not on example\.com/,
    ],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://notexample.com' }, /is not on example\.com/],
    [{ WEBAUTHN_ORIGINS: 'https://app.example.com/login' }, /WEBAUTHN_ORIGINS must hold origins only/],
  ])('refuses %j, naming the variable', (values, message) => {
    expect(() => relyingParty(loadConfig(env(values)))).toThrow(ConfigError);
    expect(() => relyingParty(loadConfig(env(values)))).toThrow(message);
  });
});

describe('passkey routes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('adding a passkey needs a signed-in user with a verified email', async () => {
    expect((await app.request('/api/auth/passkey/register/options', { method: 'POST' })).status).toBe(401);
    const unverified = await createUserWithToken(app);
    const refused = await app.request('/api/auth/passkey/register/options', { method: 'POST', token: unverified.token });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('EMAIL_NOT_VERIFIED');
    const verified = await createUserWithToken(app, undefined, { emailVerified: true });
    const options = await (await app.request('/api/auth/passkey/register/options', { method: 'POST', token: verified.token })).json();
    expect(options).toMatchObject({
      rp: { id: 'app.test' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    expect(options.user.id).not.toContain(Buffer.from(verified.user.id).toString('base64url'));
  });

  it('sign-in options ask for a discoverable passkey with user verification, and a wrong response is 401', async () => {
    const options = await (await app.request('/api/auth/passkey/login/options', { method: 'POST' })).json();
    expect(options).toMatchObject({ rpId: 'app.test', userVerification: 'required', allowCredentials: [] });
    const response = {
      id: 'YQ',
      rawId: 'YQ',
      type: 'public-key',
      response: { clientDataJSON: 'YQ', authenticatorData: 'YQ', signature: 'YQ' },
    };
    const refused = await app.request('/api/auth/passkey/login/verify', { method: 'POST', json: { response } });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe('INVALID_CREDENTIALS');
  });
});
