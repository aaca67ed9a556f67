import { createHmac, createPublicKey } from 'node:crypto';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  EmbeddedJWK,
  errors,
  importJWK,
  importSPKI,
  jwtVerify,
  type JSONWebKeySet,
  type JWK,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app-process.js';
import { startFakeHosted, type FakeHosted, type ServiceName, type TokenOverrides } from '../helpers/fake-hosted/index.js';

const CLERK_SPKI_PREFIX = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA';
const CLERK_SPKI_SUFFIX = 'IDAQAB';

let fake: FakeHosted;

beforeAll(async () => {
  fake = await startFakeHosted();
});

afterAll(async () => {
  await fake.close();
});

/** The decoded header and claims and the raw signature part of a compact JWS. */
function parts(token: string) {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;
  return { header: decode(header), claims: decode(payload), signature, input: `${header}.${payload}` };
}

const get = (url: string, headers: Record<string, string> = {}) => call(url, '', { headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve('still pending'), ms));

function jwksUrl(service: ServiceName): string {
  const env = fake.env();
  if (service === 'clerk') return `${env.CLERK_ISSUER}/.well-known/jwks.json`;
  if (service === 'auth0') return `${env.AUTH0_ISSUER_BASE_URL}/.well-known/jwks.json`;
  return `${env.SUPABASE_URL}/auth/v1/.well-known/jwks.json`;
}

/** The body of a GET that must answer 200. */
async function okBody(url: string, headers: Record<string, string> = {}): Promise<any> {
  const { status, body } = await get(url, headers);
  expect(status, url).toBe(200);
  return body;
}

const fetchJwks = (url: string): Promise<JSONWebKeySet> => okBody(url);

describe('fake hosted server', () => {
  it('listens on 127.0.0.1 and its env() joins the three services', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fake.env()).toEqual({ ...fake.clerk.env(), ...fake.auth0.env(), ...fake.supabase.env() });
    expect(fake.env()).not.toHaveProperty('SUPABASE_JWT_SECRET');
  });

  it('answers 404 outside the services and records every request with its headers', async () => {
    fake.clearRequests();
    expect((await get(`${fake.url}/nowhere`)).status).toBe(404);
    expect((await get(`${fake.url}/auth0/nothing-here`)).status).toBe(404);
    await get(`${fake.clerk.env().CLERK_API_URL}/v1/users/user_x?limit=1`, bearer('sk_test_abc'));
    expect(fake.requests().map((request) => [request.service, request.method, request.path])).toEqual([
      [null, 'GET', '/nowhere'],
      ['auth0', 'GET', '/auth0/nothing-here'],
      ['clerk', 'GET', '/clerk-api/v1/users/user_x?limit=1'],
    ]);
    expect(fake.requests('clerk')).toHaveLength(1);
    expect(fake.requests('clerk')[0]!.headers.authorization).toBe('Bearer sk_test_abc');
    fake.clearRequests();
    expect(fake.requests()).toEqual([]);
  });

  it('refuses a user id that was already added', () => {
    const id = fake.auth0.addUser({ id: 'auth0|duplicate' });
    expect(id).toBe('auth0|duplicate');
    expect(() => fake.auth0.addUser({ id })).toThrow('A user with id auth0|duplicate was already added.');
  });
});

describe('Clerk', () => {
  it('env(): sk_test_ secret, pk_test_ key decoding to the issuer host, issuer and API URLs', () => {
    const env = fake.clerk.env();
    expect(env.CLERK_SECRET_KEY).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(env.CLERK_ISSUER).toBe(`${fake.url}/clerk`);
    expect(env.CLERK_API_URL).toBe(`${fake.url}/clerk-api`);
    expect(env.CLERK_AUTHORIZED_PARTIES).toBe('http://app.test');
    const [prefix, instance, encoded] = env.CLERK_PUBLISHABLE_KEY.split('_') as [string, string, string];
    expect([prefix, instance]).toEqual(['pk', 'test']);
    // Clerk's authenticateRequest compares iss without its scheme to this value; it must contain a dot.
    expect(Buffer.from(encoded, 'base64').toString()).toBe(`${env.CLERK_ISSUER.replace('http://', '')}$`);
  });

  it('CLERK_JWT_KEY is an SPKI PEM of RSA-2048, e = 65537, that Clerk’s string-stripping loader reads', () => {
    const pem = fake.clerk.env().CLERK_JWT_KEY;
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/);
    const key = createPublicKey(pem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails).toEqual({ modulusLength: 2048, publicExponent: 65537n });
    const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----|\n/g, '');
    expect(body.startsWith(CLERK_SPKI_PREFIX)).toBe(true);
    expect(body.endsWith(CLERK_SPKI_SUFFIX)).toBe(true);
    // What loadClerkJwkFromPem builds: the middle, base64 turned base64url, is the modulus.
    const modulus = body.slice(CLERK_SPKI_PREFIX.length, -CLERK_SPKI_SUFFIX.length).replace(/\+/g, '-').replace(/\//g, '_');
    expect(modulus).toBe(key.export({ format: 'jwk' }).n);
  });

  it('a session token is a v2 RS256 token verifying with CLERK_JWT_KEY, 60 s long, without email', async () => {
    const env = fake.clerk.env();
    const userId = fake.clerk.addUser({ email: 'ada@example.com' });
    const token = await fake.clerk.sessionToken(userId);
    const { payload, protectedHeader } = await jwtVerify(token, await importSPKI(env.CLERK_JWT_KEY, 'RS256'), {
      algorithms: ['RS256'],
      issuer: env.CLERK_ISSUER,
    });
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: expect.stringMatching(/^ins_[0-9A-Za-z]{27}$/), cat: 'cl_B7d4PD111AAA', typ: 'JWT' });
    const iat = payload.iat!;
    expect(payload).toEqual({
      azp: 'http://app.test',
      exp: iat + 60,
      fva: [0, -1],
      iat,
      iss: env.CLERK_ISSUER,
      jti: expect.stringMatching(/^[0-9a-f]{20}$/),
      nbf: iat - 10,
      sid: expect.stringMatching(/^sess_[0-9A-Za-z]{27}$/),
      sub: userId,
      v: 2,
    });
    expect(Math.abs(iat - Date.now() / 1000)).toBeLessThan(5);
  });

  it('serves the instance JWKS on the Frontend API, and on the Backend API with the secret key', async () => {
    const env = fake.clerk.env();
    const token = await fake.clerk.sessionToken(fake.clerk.addUser());
    const jwks = await fetchJwks(jwksUrl('clerk'));
    expect(jwks.keys).toEqual([{ kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: parts(token).header.kid, alg: 'RS256', use: 'sig' }]);
    await jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ['RS256'] });
    expect(await get(`${env.CLERK_API_URL}/v1/jwks`, bearer(env.CLERK_SECRET_KEY))).toMatchObject({ status: 200, body: jwks });
    expect((await get(`${env.CLERK_API_URL}/v1/jwks`)).status).toBe(401);
  });

  it('GET /v1/users/{id} returns the User object with each address and its verification', async () => {
    const env = fake.clerk.env();
    const id = fake.clerk.addUser({
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      primaryEmailStatus: 'unverified',
      otherEmails: [{ email: 'ada@work.example', status: 'verified' }],
    });
    const body = await okBody(`${env.CLERK_API_URL}/v1/users/${id}`, bearer(env.CLERK_SECRET_KEY));
    expect(body).toMatchObject({
      id,
      object: 'user',
      first_name: 'Ada',
      last_name: 'Lovelace',
      image_url: expect.stringMatching(/^https:\/\//),
      primary_email_address_id: body.email_addresses[0].id,
      email_addresses: [
        { object: 'email_address', email_address: 'ada@example.com', verification: { status: 'unverified', strategy: 'email_code' } },
        { object: 'email_address', email_address: 'ada@work.example', verification: { status: 'verified', strategy: 'email_code' } },
      ],
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect(body.email_addresses[0].id).toMatch(/^idn_[0-9A-Za-z]{27}$/);
    expect(body.created_at).toBeGreaterThan(1_000_000_000_000); // milliseconds

    const verified = await okBody(`${env.CLERK_API_URL}/v1/users/${fake.clerk.addUser({ email: 'b@example.com' })}`, bearer(env.CLERK_SECRET_KEY));
    expect(verified.email_addresses.map((email: { verification: { status: string } }) => email.verification.status)).toEqual(['verified']);
    const none = await okBody(`${env.CLERK_API_URL}/v1/users/${fake.clerk.addUser({ email: null })}`, bearer(env.CLERK_SECRET_KEY));
    expect(none).toMatchObject({ primary_email_address_id: null, email_addresses: [] });
  });

  it('the Backend API refuses a missing or wrong secret key (401) and an unknown user (404) in Clerk’s error shape', async () => {
    const env = fake.clerk.env();
    const url = `${env.CLERK_API_URL}/v1/users/${fake.clerk.addUser()}`;
    const shape = (code: string) => ({
      errors: [{ message: expect.any(String), long_message: expect.any(String), code }],
      clerk_trace_id: expect.any(String),
    });
    expect(await get(url)).toMatchObject({ status: 401, body: shape('authentication_invalid') });
    expect(await get(url, bearer('sk_test_wrong'))).toMatchObject({ status: 401, body: shape('clerk_key_invalid') });
    expect(await get(`${env.CLERK_API_URL}/v1/users/user_unknown`, bearer(env.CLERK_SECRET_KEY))).toMatchObject({
      status: 404,
      body: shape('resource_not_found'),
    });
  });
});

describe('Auth0', () => {
  it('env(): the issuer base URL without trailing slash unless asked, and the API audience', () => {
    expect(fake.auth0.env()).toEqual({ AUTH0_ISSUER_BASE_URL: `${fake.url}/auth0`, AUTH0_AUDIENCE: 'https://api.gatekit.test' });
    expect(fake.auth0.env({ trailingSlash: true }).AUTH0_ISSUER_BASE_URL).toBe(`${fake.url}/auth0/`);
  });

  it('serves OpenID discovery whose issuer has one trailing slash', async () => {
    const base = fake.auth0.env().AUTH0_ISSUER_BASE_URL;
    expect(await okBody(`${base}/.well-known/openid-configuration`)).toMatchObject({
      issuer: `${base}/`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      userinfo_endpoint: `${base}/userinfo`,
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
    });
  });

  it('an access token is RS256 via the JWKS, iss with one slash, aud [API, userinfo], no email', async () => {
    const { AUTH0_ISSUER_BASE_URL: base, AUTH0_AUDIENCE: audience } = fake.auth0.env();
    const sub = fake.auth0.addUser({ email: 'ada@example.com' });
    expect(sub).toMatch(/^auth0\|[0-9a-f]{24}$/);
    const token = await fake.auth0.accessToken(sub);
    const { jwks_uri } = await okBody(`${base}/.well-known/openid-configuration`);
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(jwks_uri)), {
      algorithms: ['RS256'],
      issuer: `${base}/`,
      audience,
    });
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: expect.any(String), typ: 'JWT' });
    const iat = payload.iat!;
    expect(payload).toEqual({
      iss: `${base}/`,
      sub,
      aud: [audience, `${base}/userinfo`],
      iat,
      exp: iat + 86_400,
      scope: 'openid profile email',
      azp: expect.stringMatching(/^[0-9A-Za-z]{32}$/),
    });
  });

  it('/userinfo answers the profile with email and email_verified for the token’s user (GET and POST)', async () => {
    const base = fake.auth0.env().AUTH0_ISSUER_BASE_URL;
    const sub = fake.auth0.addUser({ email: 'bob@example.com', emailVerified: false, name: 'Bob' });
    const token = await fake.auth0.accessToken(sub);
    const answer = await okBody(`${base}/userinfo`, bearer(token));
    expect(answer).toEqual({
      sub,
      nickname: 'bob',
      name: 'Bob',
      picture: expect.stringMatching(/^https:\/\//),
      updated_at: expect.stringMatching(/Z$/),
      email: 'bob@example.com',
      email_verified: false,
    });
    expect((await call(base, '/userinfo', { method: 'POST', token })).body).toEqual(answer);
    const noEmail = fake.auth0.addUser({ email: null });
    const withoutEmail = await okBody(`${base}/userinfo`, bearer(await fake.auth0.accessToken(noEmail)));
    expect(withoutEmail).not.toHaveProperty('email');
    expect(withoutEmail).not.toHaveProperty('email_verified');
  });

  it('/userinfo refuses missing, expired, forged and non-userinfo tokens with 401', async () => {
    const base = fake.auth0.env().AUTH0_ISSUER_BASE_URL;
    const sub = fake.auth0.addUser();
    const refused = async (headers: Record<string, string>) => {
      const response = await get(`${base}/userinfo`, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm=".*", error="invalid_token"/);
    };
    await refused({});
    for (const overrides of [
      { claims: { exp: Math.floor(Date.now() / 1000) - 60 } },
      { claims: { aud: 'https://api.gatekit.test' } },
      { sign: 'none' },
      { sign: 'hs256-with-public-key' },
      { sign: 'other-key' },
      { sign: 'embedded-jwk' },
    ] satisfies TokenOverrides[]) {
      await refused(bearer(await fake.auth0.accessToken(sub, overrides)));
    }
    await refused(bearer(await fake.auth0.accessToken('auth0|never-added')));
  });
});

describe('Supabase', () => {
  it('env(): the project URL and anon key; the legacy JWT secret only when asked, and it signs the anon key', async () => {
    const env = fake.supabase.env();
    expect(Object.keys(env)).toEqual(['SUPABASE_URL', 'SUPABASE_ANON_KEY']);
    expect(env.SUPABASE_URL).toBe(`${fake.url}/supabase`);
    const legacy = fake.supabase.env({ legacySecret: true });
    expect(legacy.SUPABASE_JWT_SECRET).toMatch(/^[A-Za-z0-9+/=]{64}$/);
    const { payload, protectedHeader } = await jwtVerify(env.SUPABASE_ANON_KEY, new TextEncoder().encode(legacy.SUPABASE_JWT_SECRET), {
      algorithms: ['HS256'],
    });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({ iss: 'supabase', role: 'anon', ref: expect.stringMatching(/^[a-z]{20}$/) });
  });

  it('publishes an ES256 and an RS256 key with kids; the default token is ES256 with GoTrue’s claims and a string aud', async () => {
    const { SUPABASE_URL } = fake.supabase.env();
    const jwks = await fetchJwks(jwksUrl('supabase'));
    expect(jwks.keys.map((key) => [key.kty, key.alg, key.use])).toEqual([
      ['EC', 'ES256', 'sig'],
      ['RSA', 'RS256', 'sig'],
    ]);
    const id = fake.supabase.addUser({ email: 'Ada@Example.com', phone: '15550001111' });
    const token = await fake.supabase.accessToken(id);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      algorithms: ['ES256'],
      issuer: `${SUPABASE_URL}/auth/v1`,
      audience: 'authenticated',
    });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: jwks.keys[0]!.kid, typ: 'JWT' });
    expect(parts(token).claims.aud).toBe('authenticated');
    const iat = payload.iat!;
    expect(payload).toEqual({
      iss: `${SUPABASE_URL}/auth/v1`,
      sub: id,
      aud: 'authenticated',
      exp: iat + 3600,
      iat,
      email: 'ada@example.com',
      phone: '15550001111',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { email: 'ada@example.com', email_verified: true, phone_verified: false, sub: id },
      role: 'authenticated',
      aal: 'aal1',
      amr: [{ method: 'password', timestamp: iat }],
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      is_anonymous: false,
    });
  });

  it('RS256 tokens verify through the JWKS; HS256 tokens carry no kid and verify with the legacy secret', async () => {
    const id = fake.supabase.addUser();
    const jwks = createLocalJWKSet(await fetchJwks(jwksUrl('supabase')));
    const rs256 = await fake.supabase.accessToken(id, { alg: 'RS256' });
    expect((await jwtVerify(rs256, jwks, { algorithms: ['RS256'] })).protectedHeader.alg).toBe('RS256');
    const hs256 = await fake.supabase.accessToken(id, { alg: 'HS256' });
    expect(parts(hs256).header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const secret = new TextEncoder().encode(fake.supabase.env({ legacySecret: true }).SUPABASE_JWT_SECRET);
    expect((await jwtVerify(hs256, secret, { algorithms: ['HS256'] })).payload.sub).toBe(id);
  });

  it('GET /auth/v1/user answers GoTrue’s user, email_confirmed_at present only once confirmed', async () => {
    const { SUPABASE_URL, SUPABASE_ANON_KEY } = fake.supabase.env();
    const id = fake.supabase.addUser({ email: 'eve@example.com' });
    const body = await okBody(`${SUPABASE_URL}/auth/v1/user`, { ...bearer(await fake.supabase.accessToken(id)), apikey: SUPABASE_ANON_KEY });
    expect(body).toMatchObject({
      id,
      aud: 'authenticated',
      role: 'authenticated',
      email: 'eve@example.com',
      email_confirmed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      confirmed_at: body.email_confirmed_at,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { email: 'eve@example.com', email_verified: true, phone_verified: false, sub: id },
      identities: [{ id, user_id: id, provider: 'email', identity_data: { email: 'eve@example.com', sub: id } }],
      is_anonymous: false,
    });
    // The HS256 legacy token is accepted too: GoTrue keeps verifying kid-less HS256 tokens with its secret.
    const hs256 = await okBody(`${SUPABASE_URL}/auth/v1/user`, { ...bearer(await fake.supabase.accessToken(id, { alg: 'HS256' })), apikey: SUPABASE_ANON_KEY });
    expect(hs256.id).toBe(id);
  });

  it('forged metadata: user_metadata.email_verified true while the email is unconfirmed', async () => {
    const { SUPABASE_URL, SUPABASE_ANON_KEY } = fake.supabase.env();
    const id = fake.supabase.addUser({ email: 'mallory@example.com', emailVerified: false, userMetadata: { email_verified: true } });
    const token = await fake.supabase.accessToken(id);
    expect(parts(token).claims.user_metadata).toMatchObject({ email_verified: true });
    const body = await okBody(`${SUPABASE_URL}/auth/v1/user`, { ...bearer(token), apikey: SUPABASE_ANON_KEY });
    expect(body.user_metadata.email_verified).toBe(true);
    expect(body).not.toHaveProperty('email_confirmed_at');
    expect(body).not.toHaveProperty('confirmed_at');
    expect(body.confirmation_sent_at).toEqual(expect.any(String));
  });

  it('GET /auth/v1/user refuses a missing or wrong apikey, a missing bearer, and bad or unknown tokens like GoTrue', async () => {
    const { SUPABASE_URL, SUPABASE_ANON_KEY: apikey } = fake.supabase.env();
    const url = `${SUPABASE_URL}/auth/v1/user`;
    const id = fake.supabase.addUser();
    const good = bearer(await fake.supabase.accessToken(id));
    expect(await get(url, good)).toMatchObject({ status: 401, body: { message: 'No API key found in request' } });
    expect(await get(url, { ...good, apikey: 'wrong' })).toMatchObject({ status: 401, body: { message: 'Invalid API key' } });
    expect(await get(url, { apikey })).toMatchObject({
      status: 401,
      body: { code: 401, error_code: 'no_authorization', msg: 'This endpoint requires a Bearer token' },
    });
    const badJwt = { status: 403, body: { code: 403, error_code: 'bad_jwt', msg: expect.stringMatching(/^invalid JWT: /) } };
    for (const overrides of [
      { claims: { exp: Math.floor(Date.now() / 1000) - 60 } },
      { sign: 'none' },
      { sign: 'hs256-with-public-key' },
      { sign: 'other-key' },
      { sign: 'embedded-jwk' },
      { alg: 'HS256', sign: 'other-key' },
    ] satisfies Parameters<FakeHosted['supabase']['accessToken']>[1][]) {
      const response = await get(url, { ...bearer(await fake.supabase.accessToken(id, overrides)), apikey });
      expect(response, JSON.stringify(overrides)).toMatchObject(badJwt);
      expect(response.headers.get('x-sb-error-code')).toBe('bad_jwt');
    }
    const unknown = await fake.supabase.accessToken('00000000-0000-4000-8000-000000000000');
    expect(await get(url, { ...bearer(unknown), apikey })).toMatchObject({ status: 403, body: { error_code: 'user_not_found' } });
  });
});

/** Per service: how to mint its token, and which algorithm its real tokens use. */
const forgeable: { service: ServiceName; alg: 'RS256' | 'ES256'; mint: (overrides?: TokenOverrides) => Promise<string> }[] = [
  { service: 'clerk', alg: 'RS256', mint: (overrides) => fake.clerk.sessionToken(fake.clerk.addUser(), overrides) },
  { service: 'auth0', alg: 'RS256', mint: (overrides) => fake.auth0.accessToken(fake.auth0.addUser(), overrides) },
  { service: 'supabase', alg: 'ES256', mint: (overrides) => fake.supabase.accessToken(fake.supabase.addUser(), overrides) },
];

describe.each(forgeable)('forged $service tokens', ({ service, alg, mint }) => {
  /** The service's published key for its normal tokens (by their kid), as a JWK. */
  async function serviceJwk(): Promise<JWK> {
    const kid = parts(await mint()).header.kid;
    const key = (await fetchJwks(jwksUrl(service))).keys.find((candidate) => candidate.kid === kid);
    expect(key).toBeDefined();
    return key!;
  }

  async function attackerJwk(): Promise<JWK> {
    return (await fetchJwks(`${fake.url}/attacker/jwks.json`)).keys.find((key) => key.alg === alg)!;
  }

  const rejectsWith = async (token: string, keys: JSONWebKeySet, error: new (...args: never[]) => Error) =>
    expect(jwtVerify(token, createLocalJWKSet(keys))).rejects.toBeInstanceOf(error);

  it('none: header alg none and an empty signature part', async () => {
    const token = await mint({ sign: 'none' });
    expect(token.endsWith('.')).toBe(true);
    const { header, signature } = parts(token);
    expect(header.alg).toBe('none');
    expect(signature).toBe('');
  });

  it('hs256-with-public-key: HS256 whose HMAC key is the service public key’s SPKI PEM text', async () => {
    const jwk = await serviceJwk();
    const pem = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    if (service === 'clerk') expect(pem).toBe(fake.clerk.env().CLERK_JWT_KEY);
    const token = await mint({ sign: 'hs256-with-public-key' });
    const { header, signature, input } = parts(token);
    expect(header).toMatchObject({ alg: 'HS256', kid: jwk.kid });
    expect(signature).toBe(createHmac('sha256', pem).update(input).digest('base64url'));
    await jwtVerify(token, new TextEncoder().encode(pem), { algorithms: ['HS256'] });
  });

  it('other-key: the service’s kid and algorithm, but signed by the attacker’s key', async () => {
    const jwk = await serviceJwk();
    const token = await mint({ sign: 'other-key' });
    expect(parts(token).header).toMatchObject({ alg, kid: jwk.kid });
    await rejectsWith(token, { keys: [jwk] }, errors.JWSSignatureVerificationFailed);
    await jwtVerify(token, await importJWK(await attackerJwk(), alg));
  });

  it('embedded-jwk: signed by an attacker key given in the header as jwk and jku', async () => {
    const token = await mint({ sign: 'embedded-jwk' });
    const { header } = parts(token);
    const attacker = await attackerJwk();
    expect(header).toMatchObject({ alg, kid: attacker.kid, jku: `${fake.url}/attacker/jwks.json` });
    await jwtVerify(token, EmbeddedJWK);
    await jwtVerify(token, createRemoteJWKSet(new URL(header.jku as string)));
    await rejectsWith(token, await fetchJwks(jwksUrl(service)), errors.JWKSNoMatchingKey);
  });

  it('header and claims overrides: an unknown kid is not in the JWKS; undefined removes a claim', async () => {
    const jwk = await serviceJwk();
    const token = await mint({ header: { kid: 'unknown' }, claims: { iss: 'https://evil.example', sub: undefined } });
    await rejectsWith(token, await fetchJwks(jwksUrl(service)), errors.JWKSNoMatchingKey);
    // Otherwise a good signature by the service key.
    const { payload } = await jwtVerify(token, await importJWK(jwk, alg));
    expect(payload.iss).toBe('https://evil.example');
    expect(payload).not.toHaveProperty('sub');
    const expired = await mint({ claims: { exp: Math.floor(Date.now() / 1000) - 60 } });
    await expect(jwtVerify(expired, await importJWK(jwk, alg))).rejects.toBeInstanceOf(errors.JWTExpired);
  });
});

describe('faults', () => {
  it('api_500 makes the next user-API call answer 500 in the service’s own format, once', async () => {
    const env = fake.env();
    const clerkUser = fake.clerk.addUser();
    const auth0Token = await fake.auth0.accessToken(fake.auth0.addUser());
    const supabaseToken = await fake.supabase.accessToken(fake.supabase.addUser());
    const calls: [ServiceName, () => ReturnType<typeof get>, unknown][] = [
      ['clerk', () => get(`${env.CLERK_API_URL}/v1/users/${clerkUser}`, bearer(env.CLERK_SECRET_KEY)), { errors: [{ code: 'internal_clerk_error' }] }],
      ['auth0', () => get(`${env.AUTH0_ISSUER_BASE_URL}/userinfo`, bearer(auth0Token)), { error: 'server_error' }],
      [
        'supabase',
        () => get(`${env.SUPABASE_URL}/auth/v1/user`, { ...bearer(supabaseToken), apikey: env.SUPABASE_ANON_KEY }),
        { code: 500, error_code: 'unexpected_failure' },
      ],
    ];
    for (const [service, request, body] of calls) {
      fake.failNext(service, 'api_500');
      expect(await request(), service).toMatchObject({ status: 500, body });
      expect((await request()).status, service).toBe(200);
    }
  });

  it('a fault waits for a request of its kind, and faults queue in order', async () => {
    const base = fake.auth0.env().AUTH0_ISSUER_BASE_URL;
    const discovery = () => get(`${base}/.well-known/openid-configuration`);
    fake.failNext('auth0', 'jwks_500');
    fake.failNext('auth0', 'jwks_500');
    expect((await get(`${base}/userinfo`, bearer(await fake.auth0.accessToken(fake.auth0.addUser())))).status).toBe(200);
    expect((await discovery()).status).toBe(500);
    expect((await get(`${base}/.well-known/jwks.json`)).status).toBe(500);
    expect((await discovery()).status).toBe(200);
  });

  it('api_hang and jwks_hang never answer; close() cuts them and returns promptly', async () => {
    const other = await startFakeHosted();
    const env = other.env();
    const userUrl = `${env.CLERK_API_URL}/v1/users/${other.clerk.addUser()}`;
    // A kept-alive idle connection must not hold close() up either.
    expect((await get(userUrl, bearer(env.CLERK_SECRET_KEY))).status).toBe(200);
    other.failNext('clerk', 'api_hang');
    other.failNext('supabase', 'jwks_hang');
    const outcome = (url: string, headers: Record<string, string> = {}) =>
      fetch(url, { headers }).then(
        (response) => `answered ${response.status}`,
        () => 'connection cut',
      );
    const hungUser = outcome(userUrl, bearer(env.CLERK_SECRET_KEY));
    const hungJwks = outcome(`${env.SUPABASE_URL}/auth/v1/.well-known/jwks.json`);
    expect(await Promise.race([hungUser, hungJwks, sleep(300)])).toBe('still pending');
    expect(other.requests().map((request) => request.path)).toHaveLength(3);
    expect(await Promise.race([other.close().then(() => 'closed'), sleep(2000)])).toBe('closed');
    expect(await hungUser).toBe('connection cut');
    expect(await hungJwks).toBe('connection cut');
    await other.close();
  });
});
