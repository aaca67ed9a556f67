import { execFile } from 'node:child_process';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithToken, startTestApp, type TestApp } from './helpers/test-app.js';

/** Runs the README's resource-server recipe (test/helpers/resource-server.mjs) as its own process. */
function verifyElsewhere(app: TestApp, token: string, audience = app.context.config.JWT_AUDIENCE): Promise<{ code: number; output: string }> {
  const { API_URL, JWT_ALGORITHM } = app.context.config;
  const args = [`${app.url}/.well-known/jwks.json`, API_URL, audience, JWT_ALGORITHM, token];
  return new Promise((resolve) => {
    execFile(process.execPath, ['test/helpers/resource-server.mjs', ...args], (error, stdout) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout.trim() });
    });
  });
}

describe.each(['EdDSA', 'ES256'] as const)('another service verifies %s access tokens with the published keys', (algorithm) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ JWT_ALGORITHM: algorithm, JWT_AUDIENCE: 'https://api.example.com' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('accepts this app\'s token with jose alone, and refuses a forged one or another audience', async () => {
    const { user, token } = await createUserWithToken(app);
    const verified = await verifyElsewhere(app, token);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.output)).toMatchObject({ sub: user.id, iss: app.context.config.API_URL, aud: 'https://api.example.com' });

    const foreign = await generateKeyPair(algorithm);
    const forged = await new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: algorithm, kid: decodeProtectedHeader(token).kid, typ: 'at+jwt' }).sign(foreign.privateKey);
    expect(await verifyElsewhere(app, forged)).toEqual({ code: 1, output: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    expect(await verifyElsewhere(app, token, 'https://another-api.example.com')).toEqual({ code: 1, output: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  });
});
