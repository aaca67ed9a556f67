import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// A user's API keys (B.16 rule 3 with api-keys): made and deleted, never with the key in the event;
// and the activity is the signed-in user's own: a key cannot read it.

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function withKey(scopes?: string[]) {
  const account = await createUserWithToken(app, uniqueEmail('keys'));
  secrets.add(account.token, account.refreshToken);
  const made = await call(app, '/api/auth/api-keys', {
    method: 'POST',
    token: account.token,
    json: { name: 'CI', ...(scopes ? { scopes } : {}) },
    headers: clientHeaders('key maker'),
  });
  expect(made.status).toBe(201);
  secrets.addFrom(made.body);
  return { ...account, key: made.body.key as string, keyId: made.body.apiKey.id as string };
}

describe('API key events', () => {
  it('records a key made and deleted by its user, naming the key, never its secret', async () => {
    const { user, token, keyId } = await withKey(['profile:read']);
    expect(
      (await call(app, `/api/auth/api-keys/${keyId}`, { method: 'DELETE', token, headers: clientHeaders('key remover') })).status,
    ).toBe(204);
    const byUser = { type: 'user', id: user.id };
    const target = { type: 'apiKey', id: keyId };
    expectEvent(await onlyEvent(app, 'api_key.created', { targetId: keyId }), {
      actor: byUser,
      target,
      ip: '127.0.0.1',
      userAgent: 'key maker',
      metadata: { name: 'CI', scopes: 'profile:read' },
    });
    expectEvent(await onlyEvent(app, 'api_key.deleted', { targetId: keyId }), { actor: byUser, target, userAgent: 'key remover' });
  });

  it("records nothing for deleting another user's key (404)", async () => {
    const owner = await withKey();
    const other = await withKey();
    const before = await app.context.prisma.auditEvent.count();
    expect((await call(app, `/api/auth/api-keys/${owner.keyId}`, { method: 'DELETE', token: other.token })).status).toBe(404);
    expect(await app.context.prisma.auditEvent.count()).toBe(before);
  });
});

describe('GET /api/auth/activity with a key', () => {
  it('refuses a key, whatever its scopes (403 SESSION_REQUIRED): the activity needs a session', async () => {
    const { key, token } = await withKey(['profile:read', 'orgs:read', 'orgs:write']);
    const refused = await call(app, '/api/auth/activity', { token: key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('SESSION_REQUIRED');
    expect((await call(app, '/api/auth/activity', { token })).status).toBe(200);
  });
});

describe('secrets', () => {
  it('no event holds a key or token this file made', async () => {
    await secrets.expectNoneIn(app);
  });
});
