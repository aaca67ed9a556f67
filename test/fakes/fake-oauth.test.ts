import { createHmac } from 'node:crypto';
import { compactVerify, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, generateKeyPair, exportPKCS8, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { appleClientSecret, FakeClient, REDIRECT_URI } from '../helpers/fake-oauth/client.js';
import { HUGE_ANSWER_BYTES } from '../helpers/fake-oauth/http.js';
import { PROVIDER_IDS, startFakeProviders, type FakeProviders, type ProviderId } from '../helpers/fake-oauth/index.js';

let fake: FakeProviders;

beforeAll(async () => {
  fake = await startFakeProviders();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

const OIDC: ProviderId[] = ['google', 'microsoft', 'apple', 'linkedin', 'gitlab', 'slack', 'twitch', 'oidc'];
const GITHUB_UA = { 'user-agent': 'gatekit-test' };
const DEFAULT_TID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const MSA_TID = '9188040d-6c67-4c5b-b112-36a304b66dad';

function client(provider: ProviderId, tenant?: string): FakeClient {
  return new FakeClient(fake, provider, tenant);
}

type ErrorShape = [status: number, error: string];

/** A token error in one comparable shape: [HTTP status, provider error code]. */
async function errorOf(response: Response): Promise<ErrorShape> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('x-www-form-urlencoded')) {
    return [response.status, new URLSearchParams(text).get('error') ?? text];
  }
  const body = JSON.parse(text) as { error?: string | { code: number }; status?: number; message?: string };
  if (typeof body.error === 'string') return [response.status, body.error];
  if (body.error) return [response.status, `graph:${body.error.code}`];
  return [response.status, `twitch:${body.status}`];
}

/** Whether a token answer issued an access token (GitHub and Slack also answer errors with 200). */
async function issued(answer: Response | Promise<Response>): Promise<boolean> {
  const response = await answer;
  const text = await response.text();
  const body = (response.headers.get('content-type') ?? '').includes('x-www-form-urlencoded')
    ? Object.fromEntries(new URLSearchParams(text))
    : (JSON.parse(text) as Record<string, unknown>);
  return response.status === 200 && typeof body.access_token === 'string' && !('error' in body);
}

function rfcErrors(invalidClientStatus: number) {
  const errors: Record<'grant' | 'secret' | 'redirect', ErrorShape> = {
    grant: [400, 'invalid_grant'],
    secret: [invalidClientStatus, 'invalid_client'],
    redirect: [400, 'invalid_grant'],
  };
  return errors;
}

/** Each provider's error for a bad code, a wrong client secret, and a different redirect_uri. */
const ERRORS: Record<ProviderId, Record<'grant' | 'secret' | 'redirect', ErrorShape>> = {
  google: rfcErrors(401),
  github: { grant: [200, 'bad_verification_code'], secret: [200, 'incorrect_client_credentials'], redirect: [200, 'redirect_uri_mismatch'] },
  facebook: { grant: [400, 'graph:100'], secret: [400, 'graph:1'], redirect: [400, 'graph:100'] },
  twitter: rfcErrors(401),
  discord: rfcErrors(401),
  microsoft: rfcErrors(401),
  apple: rfcErrors(400),
  linkedin: rfcErrors(401),
  gitlab: rfcErrors(401),
  slack: { grant: [200, 'invalid_code'], secret: [200, 'bad_client_secret'], redirect: [200, 'bad_redirect_uri'] },
  twitch: { grant: [400, 'twitch:400'], secret: [403, 'twitch:403'], redirect: [400, 'twitch:400'] },
  oidc: rfcErrors(401),
};

/** A client secret that is not the right one (apple: a JWT signed with another key). */
async function wrongSecret(c: FakeClient): Promise<string> {
  if (c.provider !== 'apple') return `${await c.secret()}x`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return appleClientSecret(c.env, { pem: await exportPKCS8(privateKey) });
}

function tokenBody(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

async function verifyIdToken(c: FakeClient, idToken: string, issuer?: string): Promise<JWTPayload> {
  const { jwks, issuer: discovered } = await c.endpoints();
  const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(jwks!)), {
    algorithms: ['RS256'],
    audience: c.clientId,
    issuer: issuer ?? discovered,
  });
  return payload;
}

/** The main profile request as an app sends it (GitHub: /user; Facebook: with appsecret_proof). */
async function profileResponse(c: FakeClient, accessToken: string, url?: string): Promise<Response> {
  const { userinfo } = await c.endpoints();
  const headers = { authorization: `Bearer ${accessToken}`, ...GITHUB_UA };
  if (c.provider === 'facebook') {
    const proof = createHmac('sha256', c.env.FACEBOOK_CLIENT_SECRET!).update(accessToken).digest('hex');
    return fetch(`${userinfo}?fields=id,name,email,picture&appsecret_proof=${proof}`, { headers });
  }
  if (c.provider === 'twitter') return fetch(`${userinfo}?user.fields=profile_image_url,confirmed_email`, { headers });
  return fetch(url ?? userinfo!, { headers });
}

/** Whether a profile answer accepted the token (Slack refuses with HTTP 200 and ok:false). */
async function accepted(response: Response): Promise<boolean> {
  const body = (await response.json()) as { ok?: boolean };
  return response.ok && body.ok !== false;
}

/** The provider's profile as an app reads it (GitHub: /user and /user/emails); undefined for apple. */
async function fetchProfile(c: FakeClient, accessToken: string): Promise<unknown> {
  const { userinfo, emails } = await c.endpoints();
  if (!userinfo) return undefined;
  const get = async (url?: string) => {
    const response = await profileResponse(c, accessToken, url);
    expect(response.status).toBe(200);
    return (await response.json()) as unknown;
  };
  return emails ? { user: await get(), emails: await get(emails) } : get();
}

function picture(provider: ProviderId): string {
  return `https://images.example.com/${provider}/ada.png`;
}

/** What each provider says about its default user, in its own format. */
function expectedProfile(provider: ProviderId): unknown {
  const email = `ada.${provider}@example.com`;
  const standard = { email, email_verified: true, name: 'Ada Lovelace', picture: picture(provider) };
  const table: Record<ProviderId, unknown> = {
    google: { sub: '109876543210987654321', ...standard },
    github: {
      user: { id: 583231, login: 'adalovelace', name: 'Ada Lovelace', email: null, avatar_url: picture('github') },
      emails: [{ email, primary: true, verified: true, visibility: 'private' }],
    },
    facebook: { id: '10158000000000001', name: 'Ada Lovelace', email, picture: { data: { url: picture('facebook'), is_silhouette: false } } },
    twitter: {
      data: { id: '2244994945', name: 'Ada Lovelace', username: 'adalovelace', profile_image_url: picture('twitter'), confirmed_email: email },
    },
    discord: { id: '80351110224678912', username: 'adalovelace', discriminator: '0', global_name: 'Ada Lovelace', email, verified: true },
    microsoft: { oid: '00000000-0000-0000-66f3-3332eca7ea81', tid: DEFAULT_TID, email, xms_edov: true, name: 'Ada Lovelace' },
    apple: undefined,
    linkedin: { sub: 'yrZCpj2Z12', ...standard },
    gitlab: { sub: '1234567', nickname: 'adalovelace', ...standard },
    slack: { ok: true, sub: 'U0R7JM', 'https://slack.com/user_id': 'U0R7JM', 'https://slack.com/team_id': 'T0FAKETEAM', ...standard },
    twitch: { sub: '141981764' },
    oidc: { sub: 'oidc-user-1', ...standard },
  };
  return table[provider];
}

/** The provider-specific claims of the default user's id_token. */
function expectedClaims(provider: ProviderId): Record<string, unknown> {
  const email = `ada.${provider}@example.com`;
  const table: Partial<Record<ProviderId, Record<string, unknown>>> = {
    google: { azp: 'fake-google-client-id', email, email_verified: true, name: 'Ada Lovelace', picture: picture('google') },
    microsoft: { tid: DEFAULT_TID, oid: '00000000-0000-0000-66f3-3332eca7ea81', email, xms_edov: true, preferred_username: email, ver: '2.0' },
    apple: { sub: '001234.0f5e8a3c9b6d4e2f8a1b7c3d5e9f0a12.1234', email, email_verified: 'true', is_private_email: 'false' },
    linkedin: { sub: 'yrZCpj2Z12', email, email_verified: true, name: 'Ada Lovelace', picture: picture('linkedin') },
    gitlab: { sub: '1234567', email, email_verified: true, nickname: 'adalovelace', picture: picture('gitlab') },
    slack: { sub: 'U0R7JM', 'https://slack.com/team_id': 'T0FAKETEAM', 'https://slack.com/user_id': 'U0R7JM', email, email_verified: true },
    twitch: {
      sub: '141981764',
      azp: 'fake-twitch-client-id',
      email,
      email_verified: true,
      picture: picture('twitch'),
      preferred_username: 'adalovelace',
    },
    oidc: { sub: 'oidc-user-1', email, email_verified: true, name: 'Ada Lovelace' },
  };
  return table[provider]!;
}

function accessTokenOf(provider: ProviderId, text: string): string {
  if (provider === 'github') return new URLSearchParams(text).get('access_token')!;
  return tokenBody(text).access_token as string;
}

describe('fake OAuth providers: the happy path of each provider', () => {
  it.each(PROVIDER_IDS)('%s: authorize, redeem the code, verify the id_token, read the profile', async (provider) => {
    const c = client(provider);
    const { authorized, response, text } = await c.login();
    expect(authorized.fields.state).toBe(authorized.state);
    expect(authorized.target).toMatch(new RegExp(`^${REDIRECT_URI}`));
    expect(response.status).toBe(200);
    const accessToken = accessTokenOf(provider, text);
    expect(accessToken).toMatch(/\S{20,}/);
    if (OIDC.includes(provider)) {
      const idToken = tokenBody(text).id_token as string;
      expect(decodeProtectedHeader(idToken)).toMatchObject({ alg: 'RS256', kid: `${provider}-rs256-1` });
      const issuer = provider === 'microsoft' ? `${fake.url}/microsoft/${DEFAULT_TID}/v2.0` : `${fake.url}/${provider}`;
      const claims = await verifyIdToken(c, idToken, issuer);
      expect(claims).toMatchObject({ aud: c.clientId, ...expectedClaims(provider) });
      expect(claims.exp! - claims.iat!).toBe(3600);
      if (provider !== 'linkedin') expect(claims.nonce).toBe(authorized.nonce);
    }
    const profile = await fetchProfile(c, accessToken);
    if (provider === 'apple') expect(profile).toBeUndefined();
    else expect(profile).toMatchObject(expectedProfile(provider) as object);
    expect(fake.requests(provider).map((r) => [r.endpoint, r.outcome])).toContainEqual(['token', 'ok']);
  });
});

describe('fake OAuth providers: the token endpoint checks what the provider checks', () => {
  it.each(PROVIDER_IDS)('%s: a code is redeemed once only, and reuse revokes its access token', async (provider) => {
    const c = client(provider);
    const { authorized, response, text } = await c.login();
    expect(response.status).toBe(200);
    const accessToken = accessTokenOf(provider, text);
    const hasProfile = provider !== 'apple';
    if (hasProfile) expect(await accepted(await profileResponse(c, accessToken))).toBe(true);
    expect(await errorOf(await c.redeem(authorized))).toEqual(ERRORS[provider].grant);
    if (hasProfile) expect(await accepted(await profileResponse(c, accessToken))).toBe(false);
  });

  it.each(PROVIDER_IDS)('%s: a redirect_uri other than the authorize one is refused', async (provider) => {
    const c = client(provider);
    const authorized = await c.authorize();
    const response = await c.redeem(authorized, { fields: { redirect_uri: `${REDIRECT_URI}/other` } });
    expect(await errorOf(response)).toEqual(ERRORS[provider].redirect);
  });

  it.each(PROVIDER_IDS)('%s: a wrong client secret is refused', async (provider) => {
    const c = client(provider);
    const authorized = await c.authorize();
    expect(await errorOf(await c.redeem(authorized, { secret: await wrongSecret(c) }))).toEqual(ERRORS[provider].secret);
    // The code was not burnt by an unauthenticated client.
    expect(await issued(c.redeem(authorized))).toBe(true);
  });

  it.each(PROVIDER_IDS)('%s: an unknown code is refused', async (provider) => {
    const response = await client(provider).token({ code: 'not-a-code', redirect_uri: REDIRECT_URI });
    expect(await errorOf(response)).toEqual(ERRORS[provider].grant);
  });

  const PKCE: ProviderId[] = ['google', 'github', 'twitter', 'discord', 'microsoft', 'gitlab', 'oidc', 'slack', 'apple'];

  it.each(PKCE)('%s: a PKCE verifier that does not match, or is missing, is refused', async (provider) => {
    const c = client(provider);
    const mismatch = await c.authorize({ pkce: 'S256' });
    const other = 'x'.repeat(43);
    expect(await errorOf(await c.redeem(mismatch, { fields: { code_verifier: other } }))).toEqual(ERRORS[provider].grant);
    const missing = await c.authorize({ pkce: 'S256' });
    expect(await errorOf(await c.redeem(missing, { fields: { code_verifier: undefined } }))).toEqual(ERRORS[provider].grant);
  });

  it.each(['google', 'oidc', 'github'] as ProviderId[])('%s: a code_verifier without a code_challenge is refused', async (provider) => {
    const c = client(provider);
    const authorized = await c.authorize({ pkce: null });
    const response = await c.redeem(authorized, { fields: { code_verifier: 'v'.repeat(43) } });
    expect(await errorOf(response)).toEqual(ERRORS[provider].grant);
  });

  it('accepts the plain PKCE method where the provider does (google), and refuses it where not (github)', async () => {
    const google = client('google');
    const { response } = await google.login({ pkce: 'plain' });
    expect(response.status).toBe(200);
    const github = await client('github').authorize({ pkce: 'plain' });
    expect(github.fields).toMatchObject({ error: 'invalid_request', state: github.state });
    expect(github.fields.error_description).toMatch(/plain is not supported/);
  });

  it('binds a code to the client it was issued to', async () => {
    const authorized = await client('google').authorize();
    const oidc = client('oidc');
    const response = await oidc.token({ code: authorized.fields.code, redirect_uri: REDIRECT_URI, code_verifier: authorized.verifier });
    expect(await errorOf(response)).toEqual([400, 'invalid_grant']);
  });

  it('refuses a request that uses two client authentication methods at once', async () => {
    const c = client('google');
    const authorized = await c.authorize();
    const response = await c.redeem(authorized, { auth: 'basic', fields: { client_secret: c.env.GOOGLE_CLIENT_SECRET } });
    expect(await errorOf(response)).toEqual([400, 'invalid_request']);
  });

  it('URL-decodes HTTP Basic credentials (RFC 6749 2.3.1) and accepts client_secret_post where the provider does', async () => {
    const c = client('gitlab');
    const percentEncoded = (value: string) => value.replace(/-/g, '%2D');
    const credentials = `${percentEncoded(c.clientId)}:${percentEncoded(c.env.GITLAB_CLIENT_SECRET!)}`;
    const authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    const basic = await c.redeem(await c.authorize(), { auth: 'none', headers: { authorization } });
    expect(await issued(basic)).toBe(true);
    expect(await issued(c.redeem(await c.authorize(), { auth: 'post' }))).toBe(true);
  });

  it('linkedin and twitch take client_secret_post only', async () => {
    const linkedin = client('linkedin');
    expect(await errorOf(await linkedin.redeem(await linkedin.authorize(), { auth: 'basic' }))).toEqual([401, 'invalid_client']);
    const twitch = client('twitch');
    expect(await errorOf(await twitch.redeem(await twitch.authorize(), { auth: 'basic' }))).toEqual([403, 'twitch:403']);
  });

  it('expires codes: twitter after 30 s, the others after their own lifetime', async () => {
    const twitter = client('twitter');
    const google = client('google');
    const twitterCode = await twitter.authorize();
    const googleCode = await google.authorize();
    const googleLate = await google.authorize();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 31_000);
      expect(await errorOf(await twitter.redeem(twitterCode))).toEqual([400, 'invalid_grant']);
      expect(await issued(google.redeem(googleCode))).toBe(true);
      vi.setSystemTime(Date.now() + 10 * 60_000);
      expect(await errorOf(await google.redeem(googleLate))).toEqual([400, 'invalid_grant']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers an unsupported grant_type and a missing grant_type (which GitHub does not need)', async () => {
    const c = client('oidc');
    expect(await errorOf(await c.token({ grant_type: 'password', code: 'x' }))).toEqual([400, 'unsupported_grant_type']);
    expect(await errorOf(await c.token({ grant_type: undefined, code: 'x' }))).toEqual([400, 'invalid_request']);
    const github = client('github');
    expect(await issued(github.redeem(await github.authorize(), { fields: { grant_type: undefined } }))).toBe(true);
  });
});

describe('fake OAuth providers: the authorize endpoint', () => {
  it('shows an error page (no redirect) for an unknown client_id or a missing redirect_uri', async () => {
    const c = client('google');
    const unknown = await c.authorize({ params: { client_id: 'nobody' } });
    expect(unknown.status).toBe(400);
    expect(unknown.target).toBeUndefined();
    expect(unknown.body).toContain('invalid_client');
    const noRedirect = await c.authorize({ omit: ['redirect_uri'] });
    expect(noRedirect.status).toBe(400);
    expect(noRedirect.body).toContain('redirect_uri');
  });

  it('redirects back with unsupported_response_type and the state for response_type other than code', async () => {
    const result = await client('github').authorize({ params: { response_type: 'token' } });
    expect(result.status).toBe(302);
    expect(result.fields).toMatchObject({ error: 'unsupported_response_type', state: result.state });
  });

  it('passes the state through, keeps the redirect_uri query, and sends no state when none was given', async () => {
    const c = client('discord');
    const withQuery = await c.authorize({ params: { redirect_uri: `${REDIRECT_URI}?tenant=a` } });
    expect(withQuery.target).toMatch(new RegExp(`^${REDIRECT_URI}\\?tenant=a&code=`));
    const withState = await c.authorize({ state: 'a b&c' });
    expect(withState.fields.state).toBe('a b&c');
    const withoutState = await c.authorize({ state: null });
    expect(withoutState.fields.code).toBeTruthy();
    expect(withoutState.fields).not.toHaveProperty('state');
  });

  it('records scope, nonce, code_challenge and method of each authorize request', async () => {
    const authorized = await client('gitlab').authorize();
    const [record] = fake.authorizations('gitlab');
    expect(record).toMatchObject({
      clientId: 'fake-gitlab-client-id',
      redirectUri: REDIRECT_URI,
      scopes: ['openid', 'profile', 'email'],
      nonce: authorized.nonce,
      codeChallengeMethod: 'S256',
      state: authorized.state,
      redeemed: false,
    });
    expect(record!.codeChallenge).toMatch(/^[\w-]{43}$/);
  });

  it('logs in the queued users in order, then the default user', async () => {
    fake.nextUser('oidc', { id: 'first', email: 'first@example.com' });
    fake.nextUser('oidc', { id: 'second', email: null });
    const c = client('oidc');
    const subs: unknown[] = [];
    for (let i = 0; i < 3; i++) subs.push(decodeJwt(tokenBody((await c.login()).text).id_token as string));
    expect(subs).toMatchObject([{ sub: 'first', email: 'first@example.com' }, { sub: 'second' }, { sub: 'oidc-user-1' }]);
    expect(subs[1]).not.toHaveProperty('email');
  });

  it('records what it received: method, path, query, headers and the parsed body', async () => {
    const c = client('google');
    await c.login();
    const token = fake.requests('google').find((r) => r.endpoint === 'token')!;
    expect(token).toMatchObject({
      method: 'POST',
      path: '/google/token',
      status: 200,
      outcome: 'ok',
      body: { grant_type: 'authorization_code' },
    });
    expect(token.headers.authorization).toMatch(/^Basic /);
    expect(fake.requests('github')).toEqual([]);
    fake.reset();
    expect(fake.requests()).toEqual([]);
  });
});

describe('fake OAuth providers: GitHub', () => {
  const github = () => client('github');

  it('answers the token form-encoded by default, JSON with Accept: application/json, scope comma-separated', async () => {
    const { response, text } = await github().login();
    expect(response.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(text))).toMatchObject({ scope: 'read:user,user:email', token_type: 'bearer' });
    const c = github();
    const json = await c.redeem(await c.authorize(), { headers: { accept: 'application/json' } });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json.json()).toMatchObject({
      access_token: expect.stringMatching(/^gho_/),
      scope: 'read:user,user:email',
      token_type: 'bearer',
    });
  });

  it('sends its errors with HTTP 200, form-encoded or JSON by Accept', async () => {
    const c = github();
    const form = await c.token({ code: 'nope', redirect_uri: REDIRECT_URI });
    expect(form.status).toBe(200);
    const fields = Object.fromEntries(new URLSearchParams(await form.text()));
    expect(fields).toMatchObject({ error: 'bad_verification_code', error_description: expect.any(String) });
    const json = await c.token({ code: 'nope', redirect_uri: REDIRECT_URI }, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ error: 'bad_verification_code' });
  });

  it('requires a User-Agent, accepts the token scheme, and sends id as a number', async () => {
    const c = github();
    const token = new URLSearchParams((await c.login()).text).get('access_token')!;
    const { userinfo } = await c.endpoints();
    const noAgent = await fetch(userinfo!, { headers: { authorization: `token ${token}`, 'user-agent': '' } });
    expect(noAgent.status).toBe(403);
    const withToken = await fetch(userinfo!, { headers: { authorization: `token ${token}`, ...GITHUB_UA } });
    expect(withToken.status).toBe(200);
    expect((await withToken.json()) as unknown).toMatchObject({ id: 583231 });
    const anonymous = await fetch(userinfo!, { headers: GITHUB_UA });
    expect(anonymous.status).toBe(401);
  });

  it('serves /user/emails only with the user:email scope (404 otherwise, as GitHub)', async () => {
    const c = github();
    const token = new URLSearchParams((await c.login({ scope: 'read:user' })).text).get('access_token')!;
    const response = await fetch((await c.endpoints()).emails!, { headers: { authorization: `Bearer ${token}`, ...GITHUB_UA } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-oauth-scopes')).toBe('read:user');
  });

  it('lists extra emails, an unverified primary, and the public email on /user', async () => {
    fake.nextUser('github', {
      id: '42',
      email: 'primary@example.com',
      emailVerified: false,
      emailPublic: true,
      extraEmails: [{ email: 'work@example.com', primary: false, verified: true }],
    });
    const c = github();
    const token = new URLSearchParams((await c.login()).text).get('access_token')!;
    const profile = (await fetchProfile(c, token)) as { user: unknown; emails: unknown };
    expect(profile.user).toMatchObject({ id: 42, email: 'primary@example.com' });
    expect(profile.emails).toEqual([
      { email: 'primary@example.com', primary: true, verified: false, visibility: 'public' },
      { email: 'work@example.com', primary: false, verified: true, visibility: null },
    ]);
  });
});

describe('fake OAuth providers: Slack, Twitch, Facebook, X, Discord', () => {
  it('slack: token answer has ok:true, errors are ok:false with HTTP 200, JSON bodies are accepted', async () => {
    const c = client('slack');
    const body = tokenBody((await c.login()).text);
    expect(body).toMatchObject({ ok: true, access_token: expect.stringMatching(/^xoxp-/), token_type: 'Bearer', id_token: expect.any(String) });
    const error = await c.token({ code: 'nope', redirect_uri: REDIRECT_URI });
    expect(error.status).toBe(200);
    expect(await error.json()).toEqual({ ok: false, error: 'invalid_code' });
    const json = await c.redeem(await c.authorize(), { json: true });
    expect(await json.json()).toMatchObject({ ok: true });
    const userinfo = await fetch((await c.endpoints()).userinfo!, { headers: { authorization: 'Bearer nope' } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('twitch: scope is an array, errors are {status, message} without an error member', async () => {
    const c = client('twitch');
    expect(tokenBody((await c.login()).text)).toMatchObject({ scope: ['openid', 'user:read:email'], token_type: 'bearer' });
    const error = await c.token({ code: 'nope', redirect_uri: REDIRECT_URI });
    expect(error.status).toBe(400);
    const body = (await error.json()) as Record<string, unknown>;
    expect(body).toEqual({ status: 400, message: expect.any(String) });
  });

  it('twitch: the id_token and userinfo carry only the claims the claims parameter asked for', async () => {
    const c = client('twitch');
    const bare = decodeJwt(tokenBody((await c.login({ params: { claims: '{}' } })).text).id_token as string);
    expect(Object.keys(bare).sort()).toEqual(['aud', 'auth_time', 'azp', 'exp', 'iat', 'iss', 'nonce', 'sub']);
    const claims = JSON.stringify({ id_token: { email: null }, userinfo: { preferred_username: null, picture: null } });
    const { text } = await c.login({ params: { claims } });
    const idToken = decodeJwt(tokenBody(text).id_token as string);
    expect(idToken.email).toBe('ada.twitch@example.com');
    expect(idToken).not.toHaveProperty('email_verified');
    expect(idToken).not.toHaveProperty('picture');
    const userinfo = await fetch((await c.endpoints()).userinfo!, { headers: { authorization: `Bearer ${accessTokenOf('twitch', text)}` } });
    expect(await userinfo.json()).toEqual({ sub: '141981764', preferred_username: 'adalovelace', picture: picture('twitch') });
    const bad = await c.authorize({ params: { claims: 'not json' } });
    expect(bad.fields).toMatchObject({ error: 'invalid_request' });
  });

  it('facebook: /me requires a correct appsecret_proof, honours fields, and has no verified flag', async () => {
    const c = client('facebook');
    const token = accessTokenOf('facebook', (await c.login()).text);
    const me = (await c.endpoints()).userinfo!;
    const graph = async (query: string) => {
      const response = await fetch(`${me}?${query}`, { headers: { authorization: `Bearer ${token}` } });
      return [response.status, (await response.json()) as Record<string, unknown>] as const;
    };
    const [missingStatus, missing] = await graph('fields=id,email');
    expect(missingStatus).toBe(400);
    expect(missing).toEqual({
      error: { message: expect.stringMatching(/appsecret_proof/), type: 'GraphMethodException', code: 100, fbtrace_id: expect.any(String) },
    });
    const [wrongStatus] = await graph(`fields=id,email&appsecret_proof=${'0'.repeat(64)}`);
    expect(wrongStatus).toBe(400);
    const proof = createHmac('sha256', c.env.FACEBOOK_CLIENT_SECRET!).update(token).digest('hex');
    const [okStatus, fields] = await graph(`fields=id,email&appsecret_proof=${proof}`);
    expect(okStatus).toBe(200);
    expect(fields).toEqual({ id: '10158000000000001', email: 'ada.facebook@example.com' });
    const [, byDefault] = await graph(`appsecret_proof=${proof}`);
    expect(byDefault).toEqual({ id: '10158000000000001', name: 'Ada Lovelace' });
    const [unknownStatus] = await graph(`fields=email_verified&appsecret_proof=${proof}`);
    expect(unknownStatus).toBe(400);
  });

  it('facebook: errors are {error:{message,type,code,fbtrace_id}}; the token endpoint also answers GET', async () => {
    const c = client('facebook');
    const response = await c.token({ code: 'nope', redirect_uri: REDIRECT_URI });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: expect.any(String), type: 'OAuthException', code: 100, fbtrace_id: expect.any(String) },
    });
    const authorized = await c.authorize();
    // As Facebook documents it: a GET, and no grant_type.
    const query = new URLSearchParams({
      client_id: c.clientId,
      client_secret: await c.secret(),
      redirect_uri: REDIRECT_URI,
      code: authorized.fields.code!,
    });
    const viaGet = await fetch(`${(await c.endpoints()).token}?${query}`);
    expect(await viaGet.json()).toEqual({ access_token: expect.stringMatching(/^EAAG/), token_type: 'bearer', expires_in: 5_183_944 });
  });

  it('twitter: refuses a client secret in the body (HTTP Basic only)', async () => {
    const c = client('twitter');
    const authorized = await c.authorize();
    expect(await errorOf(await c.redeem(authorized, { auth: 'post' }))).toEqual([401, 'unauthorized_client']);
    expect(await errorOf(await c.redeem(authorized, { auth: 'none' }))).toEqual([401, 'unauthorized_client']);
  });

  it('twitter: refuses an authorize request without code_challenge or state', async () => {
    const c = client('twitter');
    const noPkce = await c.authorize({ pkce: null });
    expect(noPkce.fields).toMatchObject({ error: 'invalid_request', state: noPkce.state });
    expect(noPkce.fields).not.toHaveProperty('code');
    const noState = await c.authorize({ state: null });
    expect(noState.fields).toMatchObject({ error: 'invalid_request' });
  });

  it('twitter: confirmed_email only with users.email, user.fields=confirmed_email and a confirmed address', async () => {
    const c = client('twitter');
    const me = async (scope: string, fields: string) => {
      const token = accessTokenOf('twitter', (await c.login({ scope })).text);
      const response = await fetch(`${(await c.endpoints()).userinfo}?user.fields=${fields}`, { headers: { authorization: `Bearer ${token}` } });
      return ((await response.json()) as { data: Record<string, unknown> }).data;
    };
    expect(await me('tweet.read users.read users.email', 'confirmed_email')).toHaveProperty('confirmed_email');
    expect(await me('tweet.read users.read', 'confirmed_email')).not.toHaveProperty('confirmed_email');
    expect(await me('tweet.read users.read users.email', 'profile_image_url')).not.toHaveProperty('confirmed_email');
    fake.nextUser('twitter', { id: '7', email: 'x@example.com', emailVerified: false });
    expect(await me('tweet.read users.read users.email', 'confirmed_email')).not.toHaveProperty('confirmed_email');
  });

  it('discord: the token endpoint takes form bodies only; email and verified only with the email scope', async () => {
    const c = client('discord');
    const json = await c.redeem(await c.authorize(), { json: true });
    expect(await errorOf(json)).toEqual([400, 'invalid_request']);
    fake.nextUser('discord', { id: '1', email: 'd@example.com', emailVerified: false });
    const token = accessTokenOf('discord', (await c.login({ scope: 'identify' })).text);
    const me = await fetch((await c.endpoints()).userinfo!, { headers: { authorization: `Bearer ${token}` } });
    const body = (await me.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: '1', discriminator: '0' });
    expect(body).not.toHaveProperty('email');
    expect(body).not.toHaveProperty('verified');
  });
});

describe('fake OAuth providers: Microsoft, LinkedIn, Apple', () => {
  it('microsoft: multi-tenant discovery says {tenantid}; consumers and GUID tenants say theirs; unknown tenants fail', async () => {
    const issuerOf = async (tenant: string) => (await client('microsoft', tenant).discovery()).issuer;
    expect(await issuerOf('common')).toBe(`${fake.url}/microsoft/{tenantid}/v2.0`);
    expect(await issuerOf('organizations')).toBe(`${fake.url}/microsoft/{tenantid}/v2.0`);
    expect(await issuerOf('consumers')).toBe(`${fake.url}/microsoft/${MSA_TID}/v2.0`);
    expect(await issuerOf(DEFAULT_TID)).toBe(`${fake.url}/microsoft/${DEFAULT_TID}/v2.0`);
    expect(fake.env('microsoft').MICROSOFT_ISSUER).toBe(`${fake.url}/microsoft/{tenant}/v2.0`);
    const unknown = await fetch(`${fake.url}/microsoft/not-a-tenant/v2.0/.well-known/openid-configuration`);
    expect(unknown.status).toBe(400);
  });

  it('microsoft: the id_token iss has the real tid, sub is pairwise, xms_edov only for verified emails, never email_verified', async () => {
    const tenant = '11111111-2222-3333-4444-555555555555';
    fake.nextUser('microsoft', { id: 'aaaaaaaa-0000-0000-0000-000000000001', email: 'm@example.com', emailVerified: false, tenantId: tenant });
    const c = client('microsoft');
    const claims = await verifyIdToken(c, tokenBody((await c.login()).text).id_token as string, `${fake.url}/microsoft/${tenant}/v2.0`);
    expect(claims).toMatchObject({ tid: tenant, oid: 'aaaaaaaa-0000-0000-0000-000000000001', email: 'm@example.com' });
    expect(claims.sub).not.toBe(claims.oid);
    expect(claims).not.toHaveProperty('xms_edov');
    expect(claims).not.toHaveProperty('email_verified');
    const consumers = client('microsoft', 'consumers');
    const msa = decodeJwt(tokenBody((await consumers.login()).text).id_token as string);
    expect(msa).toMatchObject({ tid: MSA_TID, iss: `${fake.url}/microsoft/${MSA_TID}/v2.0`, xms_edov: true });
  });

  it('linkedin: never echoes the nonce, records PKCE, and answers invalid_client (401) to a code_verifier', async () => {
    const c = client('linkedin');
    const { authorized, text } = await c.login();
    expect(authorized.nonce).toBeTruthy();
    expect(decodeJwt(tokenBody(text).id_token as string)).not.toHaveProperty('nonce');
    const withPkce = await c.authorize({ pkce: 'S256' });
    expect(fake.authorizations('linkedin').at(-1)).toMatchObject({ codeChallengeMethod: 'S256', codeChallenge: expect.any(String) });
    expect(await errorOf(await c.redeem(withPkce))).toEqual([401, 'invalid_client']);
    // Without the verifier the same code works: LinkedIn ignores the challenge.
    expect(await issued(c.redeem(withPkce, { fields: { code_verifier: undefined } }))).toBe(true);
  });

  it('apple: answers with an auto-submitting form post carrying code, state and the user field on first login', async () => {
    const c = client('apple');
    fake.nextUser('apple', { id: 'apple-1', email: 'a@privaterelay.appleid.com', name: 'Grace Hopper' });
    const first = await c.authorize();
    expect(first.status).toBe(200);
    expect(first.body).toMatch(/<form method="POST" action="http:\/\/localhost:3000\/api\/auth\/callback">/);
    expect(first.body).toContain('document.forms[0].submit()');
    expect(first.fields).toMatchObject({ code: expect.any(String), state: first.state });
    expect(JSON.parse(first.fields.user!)).toEqual({ name: { firstName: 'Grace', lastName: 'Hopper' }, email: 'a@privaterelay.appleid.com' });
    const claims = decodeJwt(tokenBody(await (await c.redeem(first)).text()).id_token as string);
    expect(claims).toMatchObject({ sub: 'apple-1', email_verified: 'true', is_private_email: 'true' });
    expect(claims).not.toHaveProperty('name');
    expect(claims).not.toHaveProperty('picture');
    fake.nextUser('apple', { id: 'apple-1', email: 'a@example.com', firstLogin: false, appleStringBooleans: false });
    const again = await c.authorize();
    expect(again.fields).not.toHaveProperty('user');
    const boolClaims = decodeJwt(tokenBody(await (await c.redeem(again)).text()).id_token as string);
    expect(boolClaims).toMatchObject({ email_verified: true, is_private_email: false });
  });

  it('apple: has no userinfo endpoint and requires response_mode=form_post for name/email only', async () => {
    const c = client('apple');
    const doc = await c.discovery();
    expect(doc).not.toHaveProperty('userinfo_endpoint');
    expect(doc.issuer).toBe(`${fake.url}/apple`);
    const query = await c.authorize({ omit: ['response_mode'] });
    expect(query.status).toBe(400);
    // Without name/email, a plain query redirect works, and the id_token has no email.
    const plain = await c.authorize({ scope: 'openid', omit: ['response_mode'] });
    expect(plain.status).toBe(302);
    const claims = decodeJwt(tokenBody(await (await c.redeem(plain)).text()).id_token as string);
    expect(claims).not.toHaveProperty('email');
    expect(fake.env('apple')).not.toHaveProperty('APPLE_CLIENT_SECRET');
  });

  const now = () => Math.floor(Date.now() / 1000);
  const BAD_APPLE_SECRETS: [string, (env: Record<string, string>) => Promise<string>][] = [
    ['a wrong kid', (env) => appleClientSecret(env, { kid: 'WRONGKID00' })],
    ['a wrong aud', (env) => appleClientSecret(env, { aud: 'https://appleid.apple.com' })],
    ['a wrong iss (team id)', (env) => appleClientSecret(env, { iss: 'WRONGTEAM0' })],
    ['a wrong sub (client id)', (env) => appleClientSecret(env, { sub: 'com.example.other' })],
    ['an expired exp', (env) => appleClientSecret(env, { iat: now() - 7200, exp: now() - 3600 })],
    ['a lifetime over 15,777,000 s', (env) => appleClientSecret(env, { exp: now() + 15_777_001 })],
  ];

  it.each(BAD_APPLE_SECRETS)('apple: a client-secret JWT with %s is refused with invalid_client', async (_name, make) => {
    const c = client('apple');
    const authorized = await c.authorize();
    expect(await errorOf(await c.redeem(authorized, { secret: await make(c.env) }))).toEqual([400, 'invalid_client']);
  });

  it('apple: a client-secret JWT living exactly 15,777,000 s is accepted', async () => {
    const c = client('apple');
    const t = now();
    const secret = await appleClientSecret(c.env, { iat: t, exp: t + 15_777_000 });
    expect(await issued(c.redeem(await c.authorize(), { secret }))).toBe(true);
  });
});

describe('fake OAuth providers: faults', () => {
  it('access_denied: redirects back with error and state (apple: form post), once', async () => {
    fake.failNext('google', 'access_denied');
    const c = client('google');
    const denied = await c.authorize();
    expect(denied.fields).toEqual({ error: 'access_denied', error_description: expect.any(String), state: denied.state });
    expect((await c.authorize()).fields.code).toBeTruthy();
    fake.failNext('apple', 'access_denied');
    const apple = await client('apple').authorize();
    expect(apple.status).toBe(200);
    expect(apple.fields).toMatchObject({ error: 'access_denied', state: apple.state });
  });

  it('token_500: the token endpoint answers 500 once', async () => {
    fake.failNext('discord', 'token_500');
    const c = client('discord');
    const authorized = await c.authorize();
    expect((await c.redeem(authorized)).status).toBe(500);
    expect(await issued(c.redeem(authorized))).toBe(true);
  });

  it('token_hang: the token endpoint never answers, and close() ends it', async () => {
    const own = await startFakeProviders();
    try {
      own.failNext('oidc', 'token_hang');
      const c = new FakeClient(own, 'oidc');
      const authorized = await c.authorize();
      const pending = c.redeem(authorized).then(
        (response) => `answered ${response.status}`,
        () => 'connection closed',
      );
      const raced = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300))]);
      expect(raced).toBe('still waiting');
      const record = own.requests('oidc').at(-1);
      expect(record).toMatchObject({ endpoint: 'token', outcome: 'token_hang' });
      expect(record?.status).toBeUndefined();
      await own.close();
      expect(await pending).toBe('connection closed');
    } finally {
      await own.close();
    }
  });

  it('token_error_200: github and slack answer their error with HTTP 200, google its normal invalid_grant', async () => {
    for (const [provider, expected] of [
      ['github', [200, 'bad_verification_code']],
      ['slack', [200, 'invalid_code']],
      ['google', [400, 'invalid_grant']],
    ] as [ProviderId, ErrorShape][]) {
      fake.failNext(provider, 'token_error_200');
      const c = client(provider);
      expect(await errorOf(await c.redeem(await c.authorize()))).toEqual(expected);
    }
  });

  it('userinfo_500: the profile, userinfo or emails endpoint answers 500 once', async () => {
    for (const provider of ['github', 'oidc'] as ProviderId[]) {
      const c = client(provider);
      const token = accessTokenOf(provider, (await c.login()).text);
      fake.failNext(provider, 'userinfo_500');
      const { userinfo, emails } = await c.endpoints();
      const headers = { authorization: `Bearer ${token}`, ...GITHUB_UA };
      expect((await fetch(emails ?? userinfo!, { headers })).status).toBe(500);
      expect((await fetch(emails ?? userinfo!, { headers })).status).toBe(200);
    }
  });

  async function faultyIdToken(fault: Parameters<FakeProviders['failNext']>[1], provider: ProviderId = 'oidc') {
    fake.failNext(provider, fault);
    const c = client(provider);
    const { authorized, text } = await c.login();
    return { c, authorized, idToken: tokenBody(text).id_token as string };
  }

  it.each([
    ['id_token_bad_signature', errors.JWSSignatureVerificationFailed],
    ['id_token_unknown_kid', errors.JWKSNoMatchingKey],
    ['id_token_expired', errors.JWTExpired],
    ['id_token_wrong_aud', errors.JWTClaimValidationFailed],
    ['id_token_wrong_iss', errors.JWTClaimValidationFailed],
    ['id_token_alg_none', errors.JOSEAlgNotAllowed],
    ['id_token_hs256_client_secret', errors.JOSEAlgNotAllowed],
  ] as const)('%s: verification against the JWKS fails with %O', async (fault, errorClass) => {
    const { c, idToken } = await faultyIdToken(fault);
    await expect(verifyIdToken(c, idToken)).rejects.toBeInstanceOf(errorClass);
  });

  it('id_token_bad_signature keeps the real kid; id_token_unknown_kid uses one the JWKS lacks', async () => {
    expect(decodeProtectedHeader((await faultyIdToken('id_token_bad_signature')).idToken).kid).toBe('oidc-rs256-1');
    expect(decodeProtectedHeader((await faultyIdToken('id_token_unknown_kid')).idToken).kid).not.toBe('oidc-rs256-1');
  });

  it('id_token_wrong_aud / wrong_iss / expired change exactly that claim', async () => {
    const { c, idToken: aud } = await faultyIdToken('id_token_wrong_aud');
    expect(decodeJwt(aud).aud).not.toBe(c.clientId);
    expect(decodeJwt((await faultyIdToken('id_token_wrong_iss')).idToken).iss).not.toBe(c.issuer);
    expect(decodeJwt((await faultyIdToken('id_token_expired')).idToken).exp).toBeLessThan(Date.now() / 1000);
  });

  it('id_token_alg_none is unsigned; id_token_hs256_client_secret is HMAC-signed with the client secret', async () => {
    const none = (await faultyIdToken('id_token_alg_none')).idToken;
    expect(decodeProtectedHeader(none).alg).toBe('none');
    expect(none.endsWith('.')).toBe(true);
    const { c, idToken } = await faultyIdToken('id_token_hs256_client_secret');
    const secret = new TextEncoder().encode(c.env.OIDC_CLIENT_SECRET);
    const { protectedHeader } = await jwtVerify(idToken, secret, { algorithms: ['HS256'] });
    expect(protectedHeader.alg).toBe('HS256');
  });

  it('id_token_wrong_nonce and id_token_no_nonce: a valid signature with a bad or absent nonce', async () => {
    const wrong = await faultyIdToken('id_token_wrong_nonce', 'gitlab');
    const wrongClaims = await verifyIdToken(wrong.c, wrong.idToken);
    expect(wrongClaims.nonce).toEqual(expect.any(String));
    expect(wrongClaims.nonce).not.toBe(wrong.authorized.nonce);
    const absent = await faultyIdToken('id_token_no_nonce', 'gitlab');
    expect(await verifyIdToken(absent.c, absent.idToken)).not.toHaveProperty('nonce');
    // Faults are played once: the next id_token is sound.
    const { c, authorized, text } = await (async () => {
      const next = client('gitlab');
      return { c: next, ...(await next.login()) };
    })();
    expect((await verifyIdToken(c, tokenBody(text).id_token as string)).nonce).toBe(authorized.nonce);
  });

  it('discovery_issuer_mismatch and discovery_500', async () => {
    const c = client('oidc');
    fake.failNext('oidc', 'discovery_issuer_mismatch');
    expect((await c.discovery()).issuer).toBe(`${c.issuer}/`);
    expect((await c.discovery()).issuer).toBe(c.issuer);
    fake.failNext('oidc', 'discovery_500');
    expect((await fetch(`${c.issuer}/.well-known/openid-configuration`)).status).toBe(500);
  });

  it('discovery_no_authorization_endpoint, _authorization_endpoint_not_url and _javascript_authorization_endpoint break only that member, once', async () => {
    const c = client('oidc');
    fake.failNext('oidc', 'discovery_no_authorization_endpoint');
    const without = await c.discovery();
    expect(without).not.toHaveProperty('authorization_endpoint');
    expect(without.token_endpoint).toBe(`${c.issuer}/token`);
    fake.failNext('oidc', 'discovery_authorization_endpoint_not_url');
    expect((await c.discovery()).authorization_endpoint).toBe('not a url');
    fake.failNext('oidc', 'discovery_javascript_authorization_endpoint');
    expect(String((await c.discovery()).authorization_endpoint)).toMatch(/^javascript:/);
    expect((await c.discovery()).authorization_endpoint).toBe(`${c.issuer}/authorize`);
  });

  it('id_token_future_iat and id_token_long_lifetime: a valid signature, iat 10 minutes ahead or exp 100 years after iat', async () => {
    const future = await faultyIdToken('id_token_future_iat');
    const { payload: ahead } = await compactVerify(future.idToken, createRemoteJWKSet(new URL((await future.c.endpoints()).jwks!)));
    const aheadClaims = JSON.parse(new TextDecoder().decode(ahead)) as JWTPayload;
    expect(aheadClaims.iat! - Date.now() / 1000).toBeGreaterThan(590);
    expect(aheadClaims.exp! - aheadClaims.iat!).toBe(3600);
    const long = await faultyIdToken('id_token_long_lifetime');
    const claims = await verifyIdToken(long.c, long.idToken);
    expect(claims.exp! - claims.iat!).toBe(100 * 365 * 24 * 3600);
  });

  it('emailClaimsSplit: the id_token says email_verified without an email; userinfo gives the address and its own flag', async () => {
    fake.nextUser('oidc', { id: 'split-1', email: 'split@example.com', emailVerified: false, emailClaimsSplit: true });
    const c = client('oidc');
    const { text } = await c.login();
    const claims = await verifyIdToken(c, tokenBody(text).id_token as string);
    expect(claims.email_verified).toBe(true);
    expect(claims).not.toHaveProperty('email');
    const { userinfo } = await c.endpoints();
    const answer = await fetch(userinfo!, { headers: { authorization: `Bearer ${accessTokenOf('oidc', text)}` } });
    expect(await answer.json()).toMatchObject({ sub: 'split-1', email: 'split@example.com', email_verified: false });
  });

  it('*_huge: the normal answer plus 50 MB of padding, streamed; a client that stops reading stops the download', async () => {
    // A fake of its own: the connections cut here stay out of the other tests' way.
    const own = await startFakeProviders();
    const ownClient = (provider: ProviderId) => new FakeClient(own, provider);
    try {
      const c = ownClient('oidc');
      own.failNext('oidc', 'discovery_huge');
      const text = await (await fetch(`${c.issuer}/.well-known/openid-configuration`)).text();
      expect(text.length).toBeGreaterThan(HUGE_ANSWER_BYTES);
      expect(JSON.parse(text)).toMatchObject({ issuer: c.issuer, x_padding: expect.any(String) });
      expect(own.requests('oidc').at(-1)).toMatchObject({ endpoint: 'discovery', outcome: 'discovery_huge', complete: true });

      own.failNext('oidc', 'jwks_huge');
      const response = await fetch((await c.endpoints()).jwks!);
      expect(response.headers.get('content-length')).toBeNull();
      const reader = response.body!.getReader();
      for (let read = 0; read < 1024 * 1024; ) read += (await reader.read()).value!.byteLength;
      await reader.cancel();
      await expect.poll(() => own.requests('oidc').at(-1)!.abandoned).toBe(true);
      const jwksRecord = own.requests('oidc').at(-1)!;
      expect(jwksRecord).toMatchObject({ endpoint: 'jwks', outcome: 'jwks_huge', complete: false });
      expect(jwksRecord.bytesSent).toBeLessThan(HUGE_ANSWER_BYTES / 2);

      for (const provider of ['github', 'google'] as ProviderId[]) {
        own.failNext(provider, 'token_huge');
        const { text: tokenText } = await ownClient(provider).login();
        expect(tokenText.length).toBeGreaterThan(HUGE_ANSWER_BYTES);
        expect(accessTokenOf(provider, tokenText)).toBeTruthy();
      }
      const g = ownClient('github');
      const { text: githubToken } = await g.login();
      own.failNext('github', 'userinfo_huge');
      const user = (await (await profileResponse(g, accessTokenOf('github', githubToken))).json()) as Record<string, unknown>;
      expect(user).toMatchObject({ id: expect.any(Number), x_padding: expect.any(String) });
    } finally {
      await own.close();
    }
  }, 60_000);

  it('reset() forgets queued faults and users', async () => {
    fake.failNext('google', 'access_denied');
    fake.nextUser('google', { id: 'queued' });
    fake.reset();
    const { text } = await client('google').login();
    expect(decodeJwt(tokenBody(text).id_token as string).sub).toBe('109876543210987654321');
  });
});

describe('fake OAuth providers: env', () => {
  it('gives each provider the variables of CONTRACT B.6', () => {
    expect(Object.keys(fake.env('github')).sort()).toEqual([
      'GITHUB_AUTHORIZATION_URL',
      'GITHUB_CLIENT_ID',
      'GITHUB_CLIENT_SECRET',
      'GITHUB_EMAILS_URL',
      'GITHUB_TOKEN_URL',
      'GITHUB_USERINFO_URL',
    ]);
    expect(fake.env('facebook').FACEBOOK_USERINFO_URL).toBe(`${fake.url}/facebook/v26.0/me`);
    expect(fake.env('twitter').TWITTER_TOKEN_URL).toBe(`${fake.url}/twitter/2/oauth2/token`);
    expect(fake.env('discord').DISCORD_USERINFO_URL).toBe(`${fake.url}/discord/api/users/@me`);
    expect(Object.keys(fake.env('microsoft')).sort()).toEqual([
      'MICROSOFT_CLIENT_ID',
      'MICROSOFT_CLIENT_SECRET',
      'MICROSOFT_ISSUER',
      'MICROSOFT_TENANT_ID',
    ]);
    expect(Object.keys(fake.env('apple')).sort()).toEqual(['APPLE_CLIENT_ID', 'APPLE_ISSUER', 'APPLE_KEY_ID', 'APPLE_PRIVATE_KEY', 'APPLE_TEAM_ID']);
    expect(fake.env('apple').APPLE_PRIVATE_KEY).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    for (const provider of ['google', 'linkedin', 'gitlab', 'slack', 'twitch', 'oidc'] as ProviderId[]) {
      const prefix = provider.toUpperCase();
      expect(fake.env(provider)).toEqual({
        [`${prefix}_CLIENT_ID`]: `fake-${provider}-client-id`,
        [`${prefix}_CLIENT_SECRET`]: expect.stringMatching(/^fake-/),
        [`${prefix}_ISSUER`]: `${fake.url}/${provider}`,
      });
    }
    expect(Object.keys(fake.envAll())).toHaveLength(6 + 5 * 3 + 4 + 5 + 3 * 6);
  });
});
