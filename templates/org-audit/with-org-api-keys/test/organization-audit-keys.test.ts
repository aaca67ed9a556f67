import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// API keys and the organization log: a key reads it only with orgs:read and an admin's role, and
// what a key does is recorded with the key as its actor (B.16 rule 2).

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

let counter = 0;

/** An owner with an organization. */
async function organization() {
  const owner = await createUserWithToken(app, uniqueEmail('key-owner'));
  secrets.add(owner.token, owner.refreshToken);
  const created = await call(app, '/api/organizations', {
    method: 'POST',
    token: owner.token,
    json: { name: 'Keyed Co', slug: `keyed-co-${++counter}-${Date.now().toString(36)}` },
  });
  expect(created.status).toBe(201);
  return { owner, orgId: created.body.organization.id as string };
}

async function makeKey(path: string, token: string, body: Record<string, unknown>) {
  const made = await call(app, path, { method: 'POST', token, json: { name: 'Service', ...body } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  secrets.addFrom(made.body);
  return { key: made.body.key as string, id: made.body.apiKey.id as string };
}

const auditLog = (orgId: string, token: string) => call(app, `/api/organizations/${orgId}/audit-log`, { token });

describe('keys reading the organization log', () => {
  it("refuses the owner's user key without orgs:read (403 INSUFFICIENT_SCOPE) and a member-role organization key (403 FORBIDDEN)", async () => {
    const { owner, orgId } = await organization();
    const narrow = await makeKey('/api/auth/api-keys', owner.token, { scopes: ['profile:read'] });
    const refused = await auditLog(orgId, narrow.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_SCOPE');
    const memberKey = await makeKey(`/api/organizations/${orgId}/api-keys`, owner.token, { role: 'member' });
    const forbidden = await auditLog(orgId, memberKey.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
  });

  it("lets an admin-role organization key with orgs:read read its organization's log, and no other", async () => {
    const { owner, orgId } = await organization();
    const other = await organization();
    const adminKey = await makeKey(`/api/organizations/${orgId}/api-keys`, owner.token, { role: 'admin' });
    const read = await auditLog(orgId, adminKey.key);
    expect(read.status).toBe(200);
    expect(read.body.events.map((event: { action: string }) => event.action)).toEqual(['api_key.created', 'organization.created']);
    expect((await auditLog(other.orgId, adminKey.key)).status).toBe(404);
    // The owner's own user key with orgs:read reads it as the owner.
    const ownerKey = await makeKey('/api/auth/api-keys', owner.token, { scopes: ['orgs:read'] });
    expect((await auditLog(orgId, ownerKey.key)).status).toBe(200);
  });
});

describe('what keys do', () => {
  it('records an organization key made and deleted, by the owner, in the organization', async () => {
    const { owner, orgId } = await organization();
    const made = await makeKey(`/api/organizations/${orgId}/api-keys`, owner.token, { role: 'admin', scopes: ['orgs:read', 'orgs:write'] });
    expect((await call(app, `/api/organizations/${orgId}/api-keys/${made.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const byOwner = { type: 'user', id: owner.user.id };
    const key = { type: 'apiKey', id: made.id };
    expectEvent(await onlyEvent(app, 'api_key.created', { targetId: made.id }), {
      actor: byOwner,
      target: key,
      organizationId: orgId,
      metadata: { name: 'Service', role: 'admin', scopes: 'orgs:read orgs:write' },
    });
    expectEvent(await onlyEvent(app, 'api_key.deleted', { targetId: made.id }), { actor: byOwner, target: key, organizationId: orgId });
  });

  it('names the key as the actor of what it changes: an organization key and a user key', async () => {
    const { owner, orgId } = await organization();
    const orgKey = await makeKey(`/api/organizations/${orgId}/api-keys`, owner.token, {
      role: 'admin',
      scopes: ['orgs:read', 'orgs:write'],
    });
    const userKey = await makeKey('/api/auth/api-keys', owner.token, { scopes: ['orgs:read', 'orgs:write'] });
    for (const [key, name] of [
      [orgKey, 'Renamed by the service'],
      [userKey, 'Renamed by a script'],
    ] as const) {
      const updated = await call(app, `/api/organizations/${orgId}`, {
        method: 'PUT',
        token: key.key,
        json: { name },
        headers: { 'user-agent': 'key client' },
      });
      expect(updated.status).toBe(200);
    }
    const updates = (await call(app, `/api/organizations/${orgId}/audit-log?action=organization.updated`, { token: owner.token })).body
      .events;
    expect(updates.map((event: { actor: unknown }) => event.actor)).toEqual([
      { type: 'apiKey', id: userKey.id },
      { type: 'apiKey', id: orgKey.id },
    ]);
    expect(updates.map((event: { userAgent: string }) => event.userAgent)).toEqual(['key client', 'key client']);
  });
});

describe('secrets', () => {
  it('no event holds a key this file made', async () => {
    expect(secrets.size).toBeGreaterThan(10);
    await secrets.expectNoneIn(app);
  });
});
