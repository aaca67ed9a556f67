import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../src/modules/auth/account-deletion.js';
import { createUserWithToken, startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

let counter = 0;
const slug = () => `org-${Date.now().toString(36)}-${++counter}`;

async function organization(members: { userId: string; role: string }[]) {
  return app.context.prisma.organization.create({ data: { name: 'Acme', slug: slug(), members: { create: members } } });
}

const remove = (token: string, email: string) => app.request('/api/auth/account', { method: 'DELETE', token, json: { confirm: email } });

describe('deleting an account, for its organizations', () => {
  it('deletes the organizations the user is the only member of, and leaves the others', async () => {
    const { user, token } = await createUserWithToken(app);
    const other = await createUserWithToken(app);
    const alone = await organization([{ userId: user.id, role: 'owner' }]);
    const coOwned = await organization([
      { userId: user.id, role: 'owner' },
      { userId: other.user.id, role: 'owner' },
    ]);
    const joined = await organization([
      { userId: other.user.id, role: 'owner' },
      { userId: user.id, role: 'admin' },
    ]);

    expect((await remove(token, user.email)).status).toBe(204);
    const { prisma } = app.context;
    expect(await prisma.organization.findUnique({ where: { id: alone.id } })).toBeNull();
    for (const kept of [coOwned, joined]) {
      expect(await prisma.organization.count({ where: { id: kept.id } })).toBe(1);
      expect(await prisma.orgMember.findMany({ where: { organizationId: kept.id }, select: { userId: true } })).toEqual([{ userId: other.user.id }]);
    }
  });

  it('refuses with 409 SOLE_OWNER, naming each, while the user alone owns an organization with other members; nothing changes', async () => {
    const { user, token } = await createUserWithToken(app);
    const member = await createUserWithToken(app);
    const alone = await organization([{ userId: user.id, role: 'owner' }]);
    const team = await organization([
      { userId: user.id, role: 'owner' },
      { userId: member.user.id, role: 'member' },
    ]);

    const response = await remove(token, user.email);
    expect(response.status).toBe(409);
    const { error } = await response.json();
    expect(error.code).toBe('SOLE_OWNER');
    expect(error.details).toEqual([{ id: team.id, name: team.name, slug: team.slug }]);
    const { prisma } = app.context;
    expect(await prisma.user.count({ where: { id: user.id } })).toBe(1);
    expect(await prisma.organization.count({ where: { id: { in: [alone.id, team.id] } } })).toBe(2);
    expect((await app.request('/api/auth/me', { token })).status).toBe(200);

    // Once another member owns it too, the deletion goes through.
    await prisma.orgMember.updateMany({ where: { organizationId: team.id, userId: member.user.id }, data: { role: 'owner' } });
    expect((await remove(token, user.email)).status).toBe(204);
    expect(await prisma.orgMember.findMany({ where: { organizationId: team.id }, select: { userId: true, role: true } })).toEqual([
      { userId: member.user.id, role: 'owner' },
    ]);
  });

  it('deletes the organizations the user alone owns when asked to (an admin deleting the account)', async () => {
    const { user } = await createUserWithToken(app);
    const member = await createUserWithToken(app);
    const team = await organization([
      { userId: user.id, role: 'owner' },
      { userId: member.user.id, role: 'member' },
    ]);
    await deleteAccount(app.context, user, { deleteSoleOwnedOrganizations: true });
    expect(await app.context.prisma.organization.count({ where: { id: team.id } })).toBe(0);
    expect(await app.context.prisma.user.count({ where: { id: member.user.id } })).toBe(1);
  });
});

describe('the account export, for its organizations', () => {
  it('lists each organization with the role', async () => {
    const { user, token } = await createUserWithToken(app);
    const other = await createUserWithToken(app);
    const owned = await organization([{ userId: user.id, role: 'owner' }]);
    const joined = await organization([
      { userId: other.user.id, role: 'owner' },
      { userId: user.id, role: 'member' },
    ]);
    const response = await app.request('/api/auth/account/export', { token });
    expect(response.status).toBe(200);
    const { organizations } = await response.json();
    expect(organizations).toEqual([
      { id: owned.id, name: 'Acme', slug: owned.slug, role: 'owner', joinedAt: expect.any(String) },
      { id: joined.id, name: 'Acme', slug: joined.slug, role: 'member', joinedAt: expect.any(String) },
    ]);
  });
});
