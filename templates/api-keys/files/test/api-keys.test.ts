import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proveMailbox } from '../src/modules/auth/mailbox-proof.js';
import { isWellFormed, newKey } from '../src/modules/api-keys/key-format.js';
import { createUserWithToken, olderToken, startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const KEY_PATTERN = /^gk_user_[0-9A-Za-z]{49}$/;

async function call(target: TestApp, path: string, token: string, method = 'GET', json?: unknown) {
  const response = await target.request(path, { method, token, json });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A signed-in user with a new key (default scopes unless given). */
async function withKey(target = app, body: Record<string, unknown> = {}) {
  const signedIn = await createUserWithToken(target);
  const made = await call(target, '/api/auth/api-keys', signedIn.token, 'POST', { name: 'CI', ...body });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { ...signedIn, key: made.body.key as string, apiKey: made.body.apiKey };
}

describe('making a key', () => {
  it('answers the key once, no-store, in the documented format; only its hash and start are stored', async () => {
    const { user, token, key, apiKey } = await withKey();
    expect(key).toMatch(KEY_PATTERN);
    expect(apiKey).toEqual({
      id: expect.any(String),
      name: 'CI',
      start: key.slice(0, 12),
      scopes: ['profile:read', 'orgs:read'],
      organizationId: null,
      role: null,
      createdAt: expect.any(String),
      expiresAt: null,
      lastUsedAt: null,
      createdBy: { id: user.id, name: null },
    });
    const row = await app.context.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(row.keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(key.slice(12));
    const listed = await call(app, '/api/auth/api-keys', token);
    expect(listed.body).toEqual({ apiKeys: [apiKey], nextCursor: null });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    const again = await app.request('/api/auth/api-keys', { method: 'POST', token, json: { name: 'again' } });
    expect(again.headers.get('cache-control')).toBe('no-store');
  });

  it('checks the checksum before any lookup: every one-character change, a cut and an extended key fail it', () => {
    const key = newKey('user');
    expect(isWellFormed(key, 'user')).toBe(true);
    expect(isWellFormed(key, 'organization')).toBe(false);
    for (let i = 'gk_user_'.length; i < key.length; i++) {
      const typo = `${key.slice(0, i)}${key[i] === 'A' ? 'B' : 'A'}${key.slice(i + 1)}`;
      expect(isWellFormed(typo, 'user'), `character ${i}`).toBe(false);
    }
    expect(isWellFormed(key.slice(0, -1), 'user')).toBe(false);
    expect(isWellFormed(`${key}0`, 'user')).toBe(false);
    expect(new Set(Array.from({ length: 50 }, () => newKey('user'))).size).toBe(50);
  });

  it('takes scopes, refuses an unknown one, and expires after expiresInDays', async () => {
    const signedIn = await createUserWithToken(app);
    for (const scopes of [['admin:all'], [], 'orgs:read', [7]]) {
      const refused = await call(app, '/api/auth/api-keys', signedIn.token, 'POST', { name: 'x', scopes });
      expect([refused.status, refused.body.error.code], JSON.stringify(scopes)).toEqual([400, 'VALIDATION_ERROR']);
    }
    for (const expiresInDays of [0, 366, 1.5]) {
      expect((await call(app, '/api/auth/api-keys', signedIn.token, 'POST', { name: 'x', expiresInDays })).status).toBe(400);
    }
    const made = await call(app, '/api/auth/api-keys', signedIn.token, 'POST', { name: 'x', scopes: ['orgs:write', 'orgs:write'], expiresInDays: 30 });
    expect(made.body.apiKey.scopes).toEqual(['orgs:write']);
    const days = (Date.parse(made.body.apiKey.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  it('needs a recent sign-in, and a name that is one line', async () => {
    const { user } = await createUserWithToken(app);
    const stale = await call(app, '/api/auth/api-keys', await olderToken(app, user, 60), 'POST', { name: 'CI' });
    expect(stale.status).toBe(403);
    expect(stale.body.error.code).toBe('REAUTH_REQUIRED');
    const fresh = await createUserWithToken(app);
    for (const name of ['', 'a\nb', 'bill\u202Etxt.exe', 'x'.repeat(101)]) {
      expect((await call(app, '/api/auth/api-keys', fresh.token, 'POST', { name })).status, JSON.stringify(name)).toBe(400);
    }
  });

  it('allows API_KEYS_MAX live keys per user, also when made at the same moment', async () => {
    const limited = await startTestApp({ API_KEYS_MAX: '2' });
    try {
      const { token } = await createUserWithToken(limited);
      const made = await Promise.all(Array.from({ length: 5 }, () => call(limited, '/api/auth/api-keys', token, 'POST', { name: 'burst' })));
      expect(made.map((one) => one.status).sort()).toEqual([201, 201, 409, 409, 409]);
      expect(made.find((one) => one.status === 409)!.body.error.code).toBe('API_KEY_LIMIT');
      // An expired key no longer counts.
      const first = made.find((one) => one.status === 201)!.body.apiKey.id as string;
      await limited.context.prisma.apiKey.update({ where: { id: first }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await call(limited, '/api/auth/api-keys', token, 'POST', { name: 'after expiry' })).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe('using a key', () => {
  it('reads /api/auth/me as its user with profile:read, and is 403 INSUFFICIENT_SCOPE without it', async () => {
    const { user, key } = await withKey();
    const me = await call(app, '/api/auth/me', key);
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    const narrow = await withKey(app, { scopes: ['orgs:read'] });
    const refused = await call(app, '/api/auth/me', narrow.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: 'INSUFFICIENT_SCOPE', message: expect.any(String), details: [{ path: 'scope', message: 'profile:read is required' }] });
  });

  it('is refused with 403 SESSION_REQUIRED on account routes and on key management', async () => {
    const { key, apiKey } = await withKey();
    const routes: [string, string, unknown?][] = [
      ['/api/auth/api-keys', 'GET'],
      ['/api/auth/api-keys', 'POST', { name: 'from a key' }],
      [`/api/auth/api-keys/${apiKey.id}`, 'PATCH', { name: 'renamed by a key' }],
      [`/api/auth/api-keys/${apiKey.id}`, 'DELETE'],
      ['/api/auth/sessions', 'GET'],
      ['/api/auth/sessions/revoke-others', 'POST'],
      ['/api/auth/logout', 'POST'],
      ['/api/auth/logout-all', 'POST'],
    ];
    for (const [path, method, json] of routes) {
      const answer = await call(app, path, key, method, json);
      expect([answer.status, answer.body?.error?.code], `${method} ${path}`).toEqual([403, 'SESSION_REQUIRED']);
    }
    expect((await call(app, '/api/auth/me', key)).status).toBe(200);
  });

  it('is 401 UNAUTHENTICATED when mistyped, unknown, deleted or expired', async () => {
    const { token, key, apiKey } = await withKey();
    const flipped = `${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`;
    const unknown = `gk_user_${'0'.repeat(49)}`;
    for (const bad of [flipped, unknown, key.slice(0, -1), `${key}x`]) {
      const answer = await call(app, '/api/auth/me', bad);
      expect([answer.status, answer.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
    }
    const other = await withKey();
    await app.context.prisma.apiKey.update({ where: { id: other.apiKey.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect((await call(app, '/api/auth/me', other.key)).status).toBe(401);
    expect((await call(app, `/api/auth/api-keys/${apiKey.id}`, token, 'DELETE')).status).toBe(204);
    expect((await call(app, '/api/auth/me', key)).status).toBe(401);
  });

  it('notes lastUsedAt at most once a minute', async () => {
    const { key, apiKey } = await withKey();
    const lastUsed = async () => (await app.context.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt;
    await call(app, '/api/auth/me', key);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 3; i++) await call(app, '/api/auth/me', key);
    expect(await lastUsed()).toEqual(first);
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await app.context.prisma.apiKey.update({ where: { id: apiKey.id }, data: { lastUsedAt: twoMinutesAgo } });
    await call(app, '/api/auth/me', key);
    expect((await lastUsed())!.getTime()).toBeGreaterThan(twoMinutesAgo.getTime() + 60_000);
  });

  it('limits each key to API_KEY_RATE_LIMIT requests a minute (429 with Retry-After), another key unaffected', async () => {
    const limited = await startTestApp({ API_KEY_RATE_LIMIT: '3' });
    try {
      const busy = await withKey(limited);
      const quiet = await withKey(limited);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(limited, '/api/auth/me', busy.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await call(limited, '/api/auth/me', busy.key);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call(limited, '/api/auth/me', quiet.key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('managing keys', () => {
  it("renames and deletes the caller's own keys; another user's key is 404 and keeps working", async () => {
    const mine = await withKey();
    const theirs = await withKey();
    const renamed = await call(app, `/api/auth/api-keys/${mine.apiKey.id}`, mine.token, 'PATCH', { name: 'Deploys' });
    expect(renamed.body.apiKey).toMatchObject({ id: mine.apiKey.id, name: 'Deploys' });
    expect((await call(app, `/api/auth/api-keys/${theirs.apiKey.id}`, mine.token, 'PATCH', { name: 'Mine now' })).status).toBe(404);
    expect((await call(app, `/api/auth/api-keys/${theirs.apiKey.id}`, mine.token, 'DELETE')).status).toBe(404);
    expect((await call(app, '/api/auth/me', theirs.key)).status).toBe(200);
  });

  it('a password change or logout-all ends sessions, not keys', async () => {
    const { token, key } = await withKey();
    expect((await call(app, '/api/auth/logout-all', token, 'POST')).status).toBe(204);
    expect((await call(app, '/api/auth/me', token)).status).toBe(401);
    expect((await call(app, '/api/auth/me', key)).status).toBe(200);
  });

  it("a provisional account's take-over removes the keys made before the mailbox proof", async () => {
    const { user, key } = await withKey();
    expect(user.emailVerified).toBe(false);
    await proveMailbox(app.context, user);
    expect((await call(app, '/api/auth/me', key)).status).toBe(401);
    expect(await app.context.prisma.apiKey.count({ where: { userId: user.id } })).toBe(0);
  });
});
