import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proveMailbox } from '../src/modules/auth/mailbox-proof.js';
import { createUserWithToken, startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function call(target: TestApp, path: string, token: string, method = 'GET', json?: unknown) {
  const response = await target.request(path, { method, token, json });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** An organization with an owner, an admin and a member (added straight in the database). */
async function team(target = app) {
  const owner = await createUserWithToken(target);
  const admin = await createUserWithToken(target);
  const member = await createUserWithToken(target);
  const organization = (await call(target, '/api/organizations', owner.token, 'POST', { name: 'Acme', slug: unique('acme') })).body.organization as { id: string };
  await target.context.prisma.orgMember.create({ data: { organizationId: organization.id, userId: admin.user.id, role: 'admin' } });
  const memberRow = await target.context.prisma.orgMember.create({ data: { organizationId: organization.id, userId: member.user.id, role: 'member' } });
  return { organization, owner, admin, member, memberId: memberRow.id };
}

async function orgKey(target: TestApp, orgId: string, token: string, body: Record<string, unknown>) {
  const made = await call(target, `/api/organizations/${orgId}/api-keys`, token, 'POST', { name: 'Service', ...body });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { key: string; apiKey: { id: string } };
}

describe('making organization keys', () => {
  it('owners make member and admin keys, admins member keys only, members none; never an owner key', async () => {
    const { organization, owner, admin, member } = await team();
    const path = `/api/organizations/${organization.id}/api-keys`;
    const made = await orgKey(app, organization.id, owner.token, { role: 'admin' });
    expect(made.key).toMatch(/^gk_org_[0-9A-Za-z]{49}$/);
    expect(made.apiKey).toMatchObject({ organizationId: organization.id, role: 'admin', createdBy: { id: owner.user.id, name: null }, scopes: ['profile:read', 'orgs:read'] });
    await orgKey(app, organization.id, admin.token, { role: 'member' });
    expect((await call(app, path, admin.token, 'POST', { name: 'x', role: 'admin' })).status).toBe(403);
    expect((await call(app, path, member.token, 'POST', { name: 'x', role: 'member' })).status).toBe(403);
    expect((await call(app, path, owner.token, 'POST', { name: 'x', role: 'owner' })).status).toBe(400);
    const outsider = await createUserWithToken(app);
    expect((await call(app, path, outsider.token, 'POST', { name: 'x', role: 'member' })).status).toBe(404);
    const listed = await call(app, path, admin.token);
    expect(listed.body.apiKeys).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(made.key);
    expect((await call(app, path, member.token)).status).toBe(403);
  });

  it('allows API_KEYS_MAX live keys per organization; its makers own keys do not count', async () => {
    const limited = await startTestApp({ API_KEYS_MAX: '1' });
    try {
      const { organization, owner } = await team(limited);
      expect((await call(limited, '/api/auth/api-keys', owner.token, 'POST', { name: 'my own' })).status).toBe(201);
      await orgKey(limited, organization.id, owner.token, { role: 'member' });
      const second = await call(limited, `/api/organizations/${organization.id}/api-keys`, owner.token, 'POST', { name: 'two', role: 'member' });
      expect([second.status, second.body.error.code]).toEqual([409, 'API_KEY_LIMIT']);
    } finally {
      await limited.close();
    }
  });
});

describe('an organization key at work', () => {
  it('acts as a member of its role in its organization only, and has no user', async () => {
    const { organization, owner } = await team();
    const { key } = await orgKey(app, organization.id, owner.token, { role: 'member' });
    const other = (await call(app, '/api/organizations', owner.token, 'POST', { name: 'Other', slug: unique('other') })).body.organization;
    expect((await call(app, `/api/organizations/${organization.id}`, key)).body.organization).toMatchObject({ id: organization.id, role: 'member' });
    expect((await call(app, `/api/organizations/${organization.id}/members`, key)).body.members).toHaveLength(3);
    expect((await call(app, `/api/organizations/${other.id}`, key)).status).toBe(404);
    expect((await call(app, '/api/organizations', key)).body).toEqual({ organizations: [expect.objectContaining({ id: organization.id, role: 'member' })], nextCursor: null });
    const me = await call(app, '/api/auth/me', key);
    expect([me.status, me.body.error.code]).toEqual([403, 'SESSION_REQUIRED']);
  });

  it('needs orgs:write to change anything, and its role decides what; owner-only actions are 403', async () => {
    const { organization, owner, memberId } = await team();
    const reader = await orgKey(app, organization.id, owner.token, { role: 'admin' });
    const refused = await call(app, `/api/organizations/${organization.id}`, reader.key, 'PUT', { name: 'Renamed' });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const writer = await orgKey(app, organization.id, owner.token, { role: 'admin', scopes: ['orgs:read', 'orgs:write'] });
    expect((await call(app, `/api/organizations/${organization.id}`, writer.key, 'PUT', { name: 'Renamed' })).status).toBe(200);
    expect((await call(app, `/api/organizations/${organization.id}`, writer.key, 'DELETE')).status).toBe(403);
    const ownerMember = await app.context.prisma.orgMember.findFirstOrThrow({ where: { organizationId: organization.id, role: 'owner' } });
    expect((await call(app, `/api/organizations/${organization.id}/members/${memberId}/role`, writer.key, 'PUT', { role: 'admin' })).status).toBe(403);
    expect((await call(app, `/api/organizations/${organization.id}/members/${ownerMember.id}`, writer.key, 'DELETE')).status).toBe(403);
    expect((await call(app, '/api/organizations', writer.key, 'POST', { name: 'Made by a key' })).status).toBe(403);
    // An admin key removes plain members.
    expect((await call(app, `/api/organizations/${organization.id}/members/${memberId}`, writer.key, 'DELETE')).status).toBe(204);
    const memberKey = await orgKey(app, organization.id, owner.token, { role: 'member', scopes: ['orgs:read', 'orgs:write'] });
    expect((await call(app, `/api/organizations/${organization.id}`, memberKey.key, 'PUT', { name: 'No' })).status).toBe(403);
  });

  it('names itself, by id and name, as the sender of the invites it makes', async () => {
    const { organization, owner } = await team();
    const { key, apiKey } = await orgKey(app, organization.id, owner.token, { role: 'admin', name: 'Onboarding bot', scopes: ['orgs:read', 'orgs:write'] });
    const invited = await call(app, `/api/organizations/${organization.id}/invite`, key, 'POST', { email: `${unique('new')}@example.com` });
    expect(invited.status).toBe(201);
    expect(invited.body.invite.invitedBy).toEqual({ id: apiKey.id, name: 'Onboarding bot', email: null });
    const token = invited.body.inviteUrl.split('/invite/')[1];
    expect((await call(app, `/api/organizations/invite/${token}`, '')).body.invitedBy).toEqual({ name: 'Onboarding bot' });
    expect((await call(app, `/api/organizations/${organization.id}/invite`, key, 'POST', { email: `${unique('a')}@example.com`, role: 'admin' })).status).toBe(403);
  });

  it('outlives the member who made it, and ends with the organization', async () => {
    const { organization, owner, admin } = await team();
    const { key } = await orgKey(app, organization.id, admin.token, { role: 'member' });
    const adminMember = await app.context.prisma.orgMember.findFirstOrThrow({ where: { organizationId: organization.id, userId: admin.user.id } });
    expect((await call(app, `/api/organizations/${organization.id}/members/${adminMember.id}`, owner.token, 'DELETE')).status).toBe(204);
    expect((await call(app, `/api/organizations/${organization.id}`, key)).status).toBe(200);
    expect((await call(app, `/api/organizations/${organization.id}`, owner.token, 'DELETE')).status).toBe(204);
    expect((await call(app, `/api/organizations/${organization.id}`, key)).status).toBe(401);
  });

  it('is deleted by owners and admins, and stops working at once', async () => {
    const { organization, owner, admin } = await team();
    const { key, apiKey } = await orgKey(app, organization.id, owner.token, { role: 'admin' });
    expect((await call(app, `/api/organizations/${organization.id}/api-keys/${apiKey.id}`, key, 'DELETE')).status).toBe(403);
    expect((await call(app, `/api/organizations/${organization.id}/api-keys/${apiKey.id}`, admin.token, 'DELETE')).status).toBe(204);
    expect((await call(app, `/api/organizations/${organization.id}`, key)).status).toBe(401);
  });

  it("a provisional account's take-over removes the organization keys it made", async () => {
    const { organization, owner, admin } = await team();
    const { key } = await orgKey(app, organization.id, admin.token, { role: 'member' });
    await orgKey(app, organization.id, owner.token, { role: 'member' });
    await proveMailbox(app.context, admin.user);
    expect((await call(app, `/api/organizations/${organization.id}`, key)).status).toBe(401);
    expect(await app.context.prisma.organizationApiKey.count({ where: { organizationId: organization.id } })).toBe(1);
  });
});
