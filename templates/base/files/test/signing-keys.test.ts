import { createPublicKey, type JsonWebKey as NodeJwk } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentSigningKey, privateJwkOf } from '../src/modules/auth/signing-keys/signing-key-store.js';
import { createUserWithToken, sessionClaims, startTestApp, type TestApp } from './helpers/test-app.js';

/** A published key as Node's crypto reads it. */
const nodePublicKey = (jwk: JWK) => createPublicKey({ key: jwk as NodeJwk, format: 'jwk' });

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function expectUnauthenticated(response: Response, label: string) {
  expect(response.status, label).toBe(401);
  expect((await response.json()).error.code, label).toBe('UNAUTHENTICATED');
}

describe.each(['EdDSA', 'ES256'] as const)('access tokens signed with %s', (algorithm) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ JWT_ALGORITHM: algorithm });
  });
  afterAll(async () => {
    await app.close();
  });

  const keySet = async (): Promise<{ keys: JWK[] }> => (await app.request('/.well-known/jwks.json')).json();

  /** A signed-in user, the claims of their token, and the app's current private key. */
  async function signedIn() {
    const { user, token } = await createUserWithToken(app);
    const key = await currentSigningKey(app.context);
    const privateKey = await importJWK(privateJwkOf(app.context, key), algorithm);
    return { user, token, claims: decodeJwt(token), kid: key.id, privateKey };
  }

  it('carry kid and typ at+jwt in the header, and iss, aud and the session claims (RFC 9068)', async () => {
    const { user, token } = await createUserWithToken(app);
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    const { keys } = await keySet();
    expect(decodeProtectedHeader(token)).toEqual({ alg: algorithm, kid: (await currentSigningKey(app.context)).id, typ: 'at+jwt' });
    const { config } = app.context;
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys }), { algorithms: [algorithm], issuer: config.API_URL, audience: config.API_URL, typ: 'at+jwt' });
    expect(payload).toEqual({ iss: config.API_URL, aud: config.API_URL, ...sessionClaims(session) });
    expect(payload.exp! - payload.iat!).toBe(config.JWT_EXPIRES_IN);
    expect((await app.request('/api/auth/me', { token })).status).toBe(200);
  });

  it('publishes the public keys at /.well-known/jwks.json, no private parameter, cacheable for 300 s', async () => {
    await createUserWithToken(app);
    const response = await app.request('/.well-known/jwks.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await response.json()) as { keys: JWK[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const expected = algorithm === 'ES256' ? { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' } : { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' };
      expect(key).toMatchObject(expected);
      expect(Object.keys(key).sort()).toEqual(algorithm === 'ES256' ? ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'] : ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key.kid).toBe(await calculateJwkThumbprint(key));
      expect(nodePublicKey(key).type).toBe('public');
    }
    const document = await (await app.request('/api/openapi.json')).json();
    expect(document.paths['/.well-known/jwks.json']?.get).toBeDefined();
  });

  it('refuses HS256 signed with the public key, alg none, and a foreign key under the real kid (401)', async () => {
    const { claims, kid } = await signedIn();
    const { keys } = await keySet();
    const published = keys.find((key) => key.kid === kid)!;
    const hmacWith = (secret: Uint8Array) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' }).sign(secret);
    const pem = nodePublicKey(published).export({ format: 'pem', type: 'spki' }) as string;
    const attempts: [string, string][] = [
      ['HS256 with the JWK as the secret', await hmacWith(new TextEncoder().encode(JSON.stringify(published)))],
      ['HS256 with the PEM as the secret', await hmacWith(new TextEncoder().encode(pem))],
      ['HS256 with the raw public key as the secret', await hmacWith(Buffer.from(published.x!, 'base64url'))],
      ['HS256 with JWT_SECRET', await hmacWith(new TextEncoder().encode(app.context.config.JWT_SECRET))],
      ['alg none', `${encode({ alg: 'none', kid, typ: 'at+jwt' })}.${encode(claims)}.`],
    ];
    for (const foreignAlgorithm of ['EdDSA', 'ES256'] as const) {
      const foreign = await generateKeyPair(foreignAlgorithm);
      attempts.push([`a foreign ${foreignAlgorithm} key under the real kid`, await new SignJWT(claims).setProtectedHeader({ alg: foreignAlgorithm, kid, typ: 'at+jwt' }).sign(foreign.privateKey)]);
    }
    for (const [label, token] of attempts) await expectUnauthenticated(await app.request('/api/auth/me', { token }), label);
  });

  it('checks typ, iss, aud, expiry and every claim of a token signed with its own key (401 otherwise)', async () => {
    const { claims, kid, privateKey } = await signedIn();
    const sign = (payload: JWTPayload, header: Record<string, string> = { typ: 'at+jwt' }) => new SignJWT(payload).setProtectedHeader({ alg: algorithm, kid, ...header }).sign(privateKey);
    const now = Math.floor(Date.now() / 1000);
    const { iss: _iss, ...withoutIssuer } = claims;
    const { auth_time: _authTime, ...withoutAuthTime } = claims;
    // The same claims and header, signed with the app's key, pass: the refusals below are theirs.
    expect((await app.request('/api/auth/me', { token: await sign(claims) })).status).toBe(200);
    const attempts: [string, string][] = [
      ['typ JWT', await sign(claims, { typ: 'JWT' })],
      ['no typ', await sign(claims, {})],
      ['another issuer', await sign({ ...claims, iss: 'https://elsewhere.example' })],
      ['no issuer', await sign(withoutIssuer)],
      ['another audience', await sign({ ...claims, aud: 'https://other-api.example' })],
      ['expired', await sign({ ...claims, iat: now - 120, exp: now - 60 })],
      ['no auth_time', await sign(withoutAuthTime)],
      ['no kid', await new SignJWT(claims).setProtectedHeader({ alg: algorithm, typ: 'at+jwt' }).sign(privateKey)],
      ['an unknown kid', await sign(claims, { typ: 'at+jwt', kid: 'not-a-key-of-this-app' })],
    ];
    for (const [label, token] of attempts) await expectUnauthenticated(await app.request('/api/auth/me', { token }), label);
  });

  it('stores the private key only encrypted: no private parameter in any column of the raw row', async () => {
    await createUserWithToken(app);
    const key = await currentSigningKey(app.context);
    const { d } = privateJwkOf(app.context, key);
    expect(d).toBeTruthy();
    const rows = await app.context.prisma.$queryRaw<Record<string, unknown>[]>`SELECT * FROM "SigningKey"`;
    expect(rows.length).toBeGreaterThan(0);
    const raw = rows.flatMap((row) => Object.values(row).map(String)).join('\n');
    const secret = Buffer.from(d!, 'base64url');
    for (const form of [d!, secret.toString('base64'), secret.toString('hex')]) expect(raw).not.toContain(form);
    expect(raw).not.toMatch(/"d"\s*:/);
    for (const row of rows) expect(row.encryptedPrivateKey).toMatch(/^test\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
  });
});

describe('with HS256', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ JWT_ALGORITHM: 'HS256' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('has no /.well-known/jwks.json (404), and its OpenAPI document does not list it', async () => {
    const response = await app.request('/.well-known/jwks.json');
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('NOT_FOUND');
    const document = await (await app.request('/api/openapi.json')).json();
    expect(Object.keys(document.paths)).not.toContain('/.well-known/jwks.json');
  });

  it('refuses a token signed with a key pair, even one shaped as this app would sign it (401)', async () => {
    const { user, token } = await createUserWithToken(app);
    const claims = { ...decodeJwt(token), iss: app.context.config.API_URL, aud: app.context.config.API_URL };
    const pair = await generateKeyPair('EdDSA');
    const kid = await calculateJwkThumbprint(await exportJWK(pair.publicKey));
    const signed = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' }).sign(pair.privateKey);
    await expectUnauthenticated(await app.request('/api/auth/me', { token: signed }), `EdDSA token for ${user.id}`);
    expect(await app.context.prisma.signingKey.count()).toBe(0);
  });
});
