/**
 * Issue 35 (CONTRACT B.17): access tokens signed with key pairs, against the built server running as
 * its own process. On the full fixture (SQLite): each algorithm through the sign-in methods, the
 * JWKS, algorithm confusion, the database file, start-up refusals, `keys:rotate` under a verifier
 * that cached the key set, KEY_ENCRYPTION_KEYS rotation, the app's own tests (the whole suite under
 * EdDSA; the sign-in and token files under ES256) and the built-in pages. On the orgs-postgresql fixture: two instances sharing one database across a
 * rotation. The app's own tests (signing-keys, key-rotation, resource-server) cover the rest in
 * process, with a clock they control.
 */
import { createDecipheriv, createHmac, createPublicKey, type JsonWebKey as NodeJwk } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { call, runAppUntilExit, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { useBrowser } from '../helpers/browser.js';
import { copyOfDevDatabase, npmAsync, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { TEST_APP_URL, TEST_JWT_SECRET, useRunningApp } from '../helpers/running-app.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import { openSqlite, sqliteDate } from '../helpers/sqlite-file.js';
import { expectEveryTestPassed } from '../helpers/vitest-summary.js';

const PASSWORD = 'correct horse battery staple';
const ALGORITHMS = ['EdDSA', 'ES256'] as const;

/** A KEY_ENCRYPTION_KEYS entry: `id:` and 32 bytes of `fill`, in base64. */
const kek = (id: string, fill: number) => `${id}:${Buffer.alloc(32, fill).toString('base64')}`;
const KEK = kek('k1', 1);

let fixture: PreparedFixture;
beforeAll(async () => {
  fixture = await sharedFixture('full');
});

async function register(url: string): Promise<{ email: string; token: string; refreshToken: string; userId: string }> {
  const email = uniqueEmail('keys');
  const reply = await call(url, '/api/auth/register', { json: { email, password: PASSWORD, name: 'Ada' } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { email, token: reply.body.token, refreshToken: reply.body.refreshToken, userId: reply.body.user.id };
}

async function login(url: string, email: string): Promise<string> {
  const reply = await call(url, '/api/auth/login', { json: { email, password: PASSWORD } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.token;
}

const jwksOf = async (url: string): Promise<{ keys: JWK[] }> => (await call(url, '/.well-known/jwks.json')).body;
const me = async (url: string, token: string) => (await call(url, '/api/auth/me', { token })).status;

/** The private `d` of a stored key, decrypted as the app does (AES-256-GCM, the kid as associated data). */
function decryptD(stored: string, kid: string, entry: string): string {
  const [, iv, ciphertext, tag] = stored.split('.') as [string, string, string, string];
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(entry.split(':')[1]!, 'base64'), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(kid));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const jwk = JSON.parse(Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8'));
  return jwk.d;
}

/** Makes the next key of a SQLite app look published 10 minutes ago, as in an app that has run that long. */
function ageNextKeySqlite(databaseUrl: string): void {
  const db = openSqlite(databaseUrl);
  try {
    expect(db.prepare('UPDATE SigningKey SET createdAt = ? WHERE activatesAt IS NULL').run(sqliteDate(Date.now() - 600_000)).changes).toBe(1);
  } finally {
    db.close();
  }
}

describe.each(ALGORITHMS)('JWT_ALGORITHM=%s on a running app (full fixture, SQLite)', (algorithm) => {
  const running = useRunningApp({
    fixture: () => fixture,
    databaseUrl: () => copyOfDevDatabase(fixture, `keys-${algorithm}`),
    env: () => ({ JWT_ALGORITHM: algorithm, KEY_ENCRYPTION_KEYS: KEK }),
  });
  const verify = (token: string) =>
    jwtVerify(token, createRemoteJWKSet(new URL(`${running.app.url}/.well-known/jwks.json`)), {
      issuer: running.app.url,
      audience: running.app.url,
      typ: 'at+jwt',
      algorithms: [algorithm],
    });

  it('answers every sign-in (register, login, refresh, magic link) with an RFC 9068 token its published keys verify', async () => {
    const account = await register(running.app.url);
    const refreshed = await call(running.app.url, '/api/auth/refresh', { json: { refreshToken: account.refreshToken } });
    expect(refreshed.status).toBe(200);
    // A magic link signs up another address (on this one it would take the provisional account over).
    const email = uniqueEmail('link');
    const since = running.mail.messages.length;
    expect((await call(running.app.url, '/api/auth/magic-link/send', { json: { email } })).status).toBe(202);
    const mail = await running.mail.waitForMail(email, { since });
    const linkToken = new URL(linkFrom(mail, `${TEST_APP_URL}/magic-link?token=`)).searchParams.get('token');
    const viaLink = await call(running.app.url, '/api/auth/magic-link/verify', { json: { token: linkToken } });
    expect(viaLink.status).toBe(200);
    const signedIn: [string, string][] = [
      [account.token, account.userId],
      [await login(running.app.url, account.email), account.userId],
      [refreshed.body.token, account.userId],
      [viaLink.body.token, viaLink.body.user.id],
    ];

    const { keys } = await jwksOf(running.app.url);
    for (const [token, userId] of signedIn) {
      const header = decodeProtectedHeader(token);
      expect(header).toEqual({ alg: algorithm, kid: expect.any(String), typ: 'at+jwt' });
      expect(keys.map((key) => key.kid)).toContain(header.kid);
      const { payload } = await verify(token);
      expect(payload).toMatchObject({ iss: running.app.url, aud: running.app.url, sub: userId, sid: expect.any(String), jti: expect.any(String), auth_time: expect.any(Number) });
      expect(payload.exp! - payload.iat!).toBe(900);
      expect(await me(running.app.url, token)).toBe(200);
    }
  });

  it('publishes the public keys only, with Cache-Control: public, max-age=300, and documents the route', async () => {
    const reply = await call(running.app.url, '/.well-known/jwks.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('public, max-age=300');
    expect(reply.body.keys.length).toBeGreaterThanOrEqual(2);
    for (const key of reply.body.keys as JWK[]) {
      expect(Object.keys(key).sort()).toEqual(algorithm === 'ES256' ? ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'] : ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key).toMatchObject({ alg: algorithm, use: 'sig', crv: algorithm === 'ES256' ? 'P-256' : 'Ed25519' });
    }
    expect(JSON.stringify(reply.body)).not.toMatch(/"(d|p|q|dp|dq|qi|k)"/);
    const document = (await call(running.app.url, '/api/openapi.json')).body;
    expect(document.paths['/.well-known/jwks.json'].get).toBeDefined();
  });

  it('refuses algorithm confusion with 401: HS256 signed with the public key or JWT_SECRET, none, a foreign key under a real kid', async () => {
    const account = await register(running.app.url);
    const claims = decodeJwt(account.token);
    const { kid } = decodeProtectedHeader(account.token);
    const published = (await jwksOf(running.app.url)).keys.find((key) => key.kid === kid)!;
    const pem = createPublicKey({ key: published as NodeJwk, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string;
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const hs256 = (secret: string | Buffer) => {
      const input = `${encode({ alg: 'HS256', kid, typ: 'at+jwt' })}.${encode(claims)}`;
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    };
    const attempts: [string, string][] = [
      ['HS256, the PEM public key as secret', hs256(pem)],
      ['HS256, the JWK as secret', hs256(JSON.stringify(published))],
      ['HS256, the raw public key as secret', hs256(Buffer.from(published.x!, 'base64url'))],
      ['HS256, JWT_SECRET', hs256(TEST_JWT_SECRET)],
      ['none', `${encode({ alg: 'none', kid, typ: 'at+jwt' })}.${encode(claims)}.`],
    ];
    for (const other of ALGORITHMS) {
      const foreign = await generateKeyPair(other);
      attempts.push([`${other}, a foreign key under the real kid`, await new SignJWT(claims).setProtectedHeader({ alg: other, kid, typ: 'at+jwt' }).sign(foreign.privateKey)]);
    }
    expect(await me(running.app.url, account.token)).toBe(200);
    for (const [label, token] of attempts) {
      const reply = await call(running.app.url, '/api/auth/me', { token });
      expect(reply.status, label).toBe(401);
      expect(reply.body.error.code, label).toBe('UNAUTHENTICATED');
      expect(reply.headers.get('www-authenticate'), label).toMatch(/^Bearer/);
    }
  });

  it('keeps no clear private key in the database file', async () => {
    await register(running.app.url);
    const db = openSqlite(running.databaseUrl, { readonly: true });
    const rows = db.prepare('SELECT id, encryptedPrivateKey FROM SigningKey').all() as { id: string; encryptedPrivateKey: string }[];
    db.close();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const file = running.databaseUrl.slice('file:'.length);
    const bytes = Buffer.concat([file, `${file}-wal`].filter(existsSync).map((name) => readFileSync(name)));
    for (const row of rows) {
      const d = decryptD(row.encryptedPrivateKey, row.id, KEK);
      const raw = Buffer.from(d, 'base64url');
      for (const form of [Buffer.from(d), raw, Buffer.from(raw.toString('base64')), Buffer.from(raw.toString('hex'))]) expect(bytes.includes(form)).toBe(false);
    }
    expect(bytes.includes(Buffer.from('"d":'))).toBe(false);
  });
});

describe('start-up (full fixture)', () => {
  const base = () => ({ JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: copyOfDevDatabase(fixture, 'keys-start'), NODE_ENV: 'production' });

  it('refuses EdDSA or ES256 without KEY_ENCRYPTION_KEYS in production, an unknown algorithm and a malformed key, before any port opens (exit 1)', async () => {
    const cases: [Record<string, string>, string][] = [
      // Empty, not left out: the fixture's .env (loaded for variables the environment lacks) has one.
      [{ JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: '' }, 'KEY_ENCRYPTION_KEYS is required with JWT_ALGORITHM=EdDSA: it encrypts the private signing keys stored in the database'],
      [{ JWT_ALGORITHM: 'ES256', KEY_ENCRYPTION_KEYS: '' }, 'KEY_ENCRYPTION_KEYS is required with JWT_ALGORITHM=ES256'],
      [{ JWT_ALGORITHM: 'RS256' }, 'JWT_ALGORITHM must be HS256, EdDSA or ES256 (got "RS256")'],
      [{ JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: 'k1:c2hvcnQ=' }, 'KEY_ENCRYPTION_KEYS must be a comma-separated list of id:key entries, each key 32 random bytes in base64'],
    ];
    for (const [env, message] of cases) {
      const { code, output } = await runAppUntilExit(fixture.dir, { ...base(), ...env });
      expect(code, message).toBe(1);
      expect(output).toContain(message);
      expect(output).not.toContain('server listening');
      expect(output).not.toContain('c2hvcnQ=');
    }
  });

  it('starts with HS256 in production without KEY_ENCRYPTION_KEYS, and then has no JWKS (404) nor documents one', async () => {
    const app = await startAppProcess(fixture.dir, base());
    try {
      const reply = await call(app.url, '/.well-known/jwks.json');
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
      expect(Object.keys((await call(app.url, '/api/openapi.json')).body.paths)).not.toContain('/.well-known/jwks.json');
      expect(decodeProtectedHeader((await register(app.url)).token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    } finally {
      await app.stop();
    }
  });
});

describe('keys:rotate (EdDSA, full fixture)', () => {
  let databaseUrl: string;
  const started: AppProcess[] = [];
  // Every process of this app answers as one API: the issuer and audience of its tokens.
  const API_URL = 'http://api.test';
  const env = (keys = KEK) => ({ JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: databaseUrl, API_URL, APP_URL: TEST_APP_URL, BCRYPT_COST: '4', RATE_LIMIT_MAX: '0', JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: keys });
  const start = async (keys?: string) => {
    const app = await startAppProcess(fixture.dir, env(keys));
    started.push(app);
    return app;
  };
  beforeAll(() => {
    databaseUrl = copyOfDevDatabase(fixture, 'keys-rotate');
  });
  afterAll(async () => {
    for (const app of started) await app.stop();
  });

  it('leaves a verifier that cached the key set before it able to verify every token after it, without fetching again', async () => {
    const app = await start();
    const account = await register(app.url);
    const before = decodeProtectedHeader(account.token).kid;
    const cached = createLocalJWKSet(await jwksOf(app.url));
    const verifyCached = async (token: string) => (await jwtVerify(token, cached, { issuer: API_URL, audience: API_URL, typ: 'at+jwt', algorithms: ['EdDSA'] })).protectedHeader.kid;

    ageNextKeySqlite(databaseUrl);
    const output = await fixture.runAsync('keys:rotate', env());
    expect(output).toMatch(/Signing key \S+ \(EdDSA\) signs from /);

    const after = [await login(app.url, account.email), (await call(app.url, '/api/auth/refresh', { json: { refreshToken: account.refreshToken } })).body.token as string];
    for (const token of after) {
      const kid = await verifyCached(token);
      expect(kid).not.toBe(before);
      expect(await me(app.url, token)).toBe(200);
    }
    expect(await verifyCached(account.token)).toBe(before);
    expect(await me(app.url, account.token)).toBe(200);
    // The old key stays published, and a new next key is.
    expect((await jwksOf(app.url)).keys.map((key) => key.kid)).toEqual(expect.arrayContaining([before, decodeProtectedHeader(after[0]!).kid]));
    expect((await jwksOf(app.url)).keys).toHaveLength(3);
  });

  it('re-encrypts every stored key under the first KEY_ENCRYPTION_KEYS entry, after which the old entry can go', async () => {
    const app = await start();
    const account = await register(app.url);
    const newKeys = `${kek('k2', 2)},${KEK}`;
    expect(await fixture.runAsync('keys:rotate', env(newKeys))).toMatch(/encrypted under the KEY_ENCRYPTION_KEYS entry "k2" \([1-9]\d* re-encrypted now\)/);
    const db = openSqlite(databaseUrl, { readonly: true });
    const stored = db.prepare('SELECT encryptedPrivateKey FROM SigningKey').all() as { encryptedPrivateKey: string }[];
    db.close();
    expect(new Set(stored.map((row) => row.encryptedPrivateKey.split('.')[0]))).toEqual(new Set(['k2']));

    const onlyNew = await start(kek('k2', 2));
    expect(await me(onlyNew.url, await login(onlyNew.url, account.email))).toBe(200);
    expect(await me(onlyNew.url, account.token)).toBe(200);
    // With only the old entry, nothing can sign: the sign-in fails and the log names the missing entry.
    const onlyOld = await start(KEK);
    const refused = await call(onlyOld.url, '/api/auth/login', { json: { email: account.email, password: PASSWORD } });
    expect(refused.status).toBe(500);
    expect(refused.body.error.code).toBe('INTERNAL_ERROR');
    await onlyOld.waitForOutput('KEY_ENCRYPTION_KEYS entry \\"k2\\", which is no longer listed');
  });
});

/**
 * The app's test files of every sign-in method and of the tokens themselves. EdDSA runs the app's
 * whole suite; ES256 runs these, since the rest (organizations, audit, admin, API keys) takes a
 * token from the same signer and never looks inside it. HS256, the default, runs the whole suite
 * in every fixture's project checks.
 */
const SIGN_IN_AND_TOKEN_FILES = [
  'password',
  'magic-link',
  'passkey',
  'oauth',
  'identities',
  'clerk',
  'authjs',
  'auth0',
  'supabase',
  'two-factor',
  'sessions',
  'guard',
  'impersonation',
  'signing-keys',
  'key-rotation',
  'resource-server',
].map((name) => `test/${name}.test.ts`);

describe("the app's own tests with JWT_ALGORITHM=EdDSA (the whole suite of the full fixture)", () => {
  it('pass', () => {
    expectEveryTestPassed(fixture.run('test', { JWT_ALGORITHM: 'EdDSA' }));
  }, 600_000);
});

describe("the app's own tests with JWT_ALGORITHM=ES256 (every sign-in method and the tokens, full fixture)", () => {
  it('pass, every one of those files', async () => {
    for (const file of SIGN_IN_AND_TOKEN_FILES) expect(existsSync(`${fixture.dir}/${file}`), file).toBe(true);
    const output = await npmAsync(fixture.dir, ['run', 'test', '--', ...SIGN_IN_AND_TOKEN_FILES], { ...fixture.env, JWT_ALGORITHM: 'ES256' }, 'full: npm test (ES256)');
    expectEveryTestPassed(output);
    expect(output.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(new RegExp(`Test Files\\s+${SIGN_IN_AND_TOKEN_FILES.length} passed \\(${SIGN_IN_AND_TOKEN_FILES.length}\\)`));
  }, 600_000);
});

describe('the built-in pages with JWT_ALGORITHM=EdDSA (Chromium)', () => {
  const browser = useBrowser();
  const running = useRunningApp({
    fixture: () => fixture,
    databaseUrl: () => copyOfDevDatabase(fixture, 'keys-pages'),
    env: () => ({ JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: KEK }),
    appUrlIsSelf: true,
  });
  const tokenOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('accessToken'));

  it('signs in with the password, shows the account and its sessions, and signs out', async () => {
    const account = await register(running.app.url);
    const tab = await browser.open();
    const { page } = tab;
    page.setDefaultTimeout(10_000);
    await page.goto(`${running.env().APP_URL}/`);
    const form = page.locator('#sign-in-form');
    await form.getByLabel('Email').fill(account.email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${running.env().APP_URL}/account`);
    await page.locator('#profile [data-field="email"]', { hasText: account.email }).waitFor();
    const token = (await tokenOf(page))!;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(await me(running.app.url, token)).toBe(200);
    await page.reload();
    await page.locator('#profile [data-field="email"]', { hasText: account.email }).waitFor();
    expect(tab.errors).toEqual([]);
    await tab.context.close();
  });
});

describe('two instances on one PostgreSQL database (orgs-postgresql fixture, EdDSA)', () => {
  let pgFixture: PreparedFixture;
  let database: TempPgSchema;
  const started: AppProcess[] = [];
  let a: AppProcess;
  let b: AppProcess;
  // One public URL for both, as behind a load balancer: it is every token's issuer and audience.
  const API_URL = 'http://api.test';
  const env = () => ({ JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: database.url, API_URL, APP_URL: TEST_APP_URL, BCRYPT_COST: '4', RATE_LIMIT_MAX: '0', JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: KEK });
  const sql = async (text: string) => {
    const client = new pg.Client({ connectionString: database.url.replace(/\?.*$/, '') });
    await client.connect();
    try {
      return (await client.query(text.replaceAll('"SigningKey"', `"${database.schema}"."SigningKey"`))).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTempPgSchema();
    pgFixture = await sharedFixture('orgs-postgresql', database.url);
    pgFixture.run('db:migrate', { DATABASE_URL: database.url });
    for (let i = 0; i < 2; i++) started.push(await startAppProcess(pgFixture.dir, env()));
    [a, b] = started as [AppProcess, AppProcess];
  });
  afterAll(async () => {
    for (const app of started) await app.stop();
    await database?.drop();
  });

  it('make one signing key and one next key when both sign their first tokens at once, and check each other\'s tokens', async () => {
    const accounts = await Promise.all([a, b, a, b, a, b].map((app) => register(app.url)));
    expect(new Set(accounts.map((account) => decodeProtectedHeader(account.token).kid)).size).toBe(1);
    expect((await sql('SELECT count(*)::int AS n FROM "SigningKey"'))[0].n).toBe(2);
    for (const [i, account] of accounts.entries()) expect(await me((i % 2 ? a : b).url, account.token)).toBe(200);
    expect(await jwksOf(a.url)).toEqual(await jwksOf(b.url));
  });

  it('after keys:rotate both sign with the new key, and each accepts the other\'s tokens, old and new', async () => {
    const account = await register(a.url);
    const before = decodeProtectedHeader(account.token).kid;
    const cached = createLocalJWKSet(await jwksOf(b.url));
    await sql(`UPDATE "SigningKey" SET "createdAt" = now() - interval '10 minutes' WHERE "activatesAt" IS NULL`);
    expect(await pgFixture.runAsync('keys:rotate', env())).toMatch(/Signing key \S+ \(EdDSA\) signs from /);

    const fromA = await login(a.url, account.email);
    const fromB = await login(b.url, account.email);
    const after = decodeProtectedHeader(fromA).kid;
    expect(after).not.toBe(before);
    expect(decodeProtectedHeader(fromB).kid).toBe(after);
    for (const [url, token] of [[b.url, fromA], [a.url, fromB], [a.url, account.token], [b.url, account.token]] as const) expect(await me(url, token)).toBe(200);
    // A verifier that cached the key set from one instance before the rotation verifies the tokens of both after it.
    for (const token of [fromA, fromB]) expect((await jwtVerify(token, cached, { issuer: API_URL, audience: API_URL, typ: 'at+jwt' })).protectedHeader.kid).toBe(after);
  });
});
