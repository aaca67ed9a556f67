import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokenResponse } from '../src/modules/auth/complete-login.js';
import { proveMailbox } from '../src/modules/auth/mailbox-proof.js';
import { createUserWithToken, startTestApp, testSignIn, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function call(path: string, token: string, method = 'GET', json?: unknown) {
  const response = await app.request(path, { method, token, json });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function createOrganization(token: string, body: Record<string, unknown> = {}) {
  const created = await call('/api/organizations', token, 'POST', { name: 'Acme', slug: unique('acme'), ...body });
  expect(created.status).toBe(201);
  return created.body.organization as { id: string; slug: string };
}

/** An organization with an owner, an admin and a member (added straight in the database). */
async function organizationWithTeam() {
  const owner = await createUserWithToken(app);
  const admin = await createUserWithToken(app);
  const member = await createUserWithToken(app);
  const outsider = await createUserWithToken(app);
  const organization = await createOrganization(owner.token);
  const adminMember = await app.context.prisma.orgMember.create({ data: { organizationId: organization.id, userId: admin.user.id, role: 'admin' } });
  const plainMember = await app.context.prisma.orgMember.create({ data: { organizationId: organization.id, userId: member.user.id, role: 'member' } });
  const ownerMember = await app.context.prisma.orgMember.findFirstOrThrow({ where: { organizationId: organization.id, userId: owner.user.id } });
  return { organization, owner, admin, member, outsider, ids: { owner: ownerMember.id, admin: adminMember.id, member: plainMember.id } };
}

describe('organizations', () => {
  it('creates an organization with the caller as owner and a slug derived from the name', async () => {
    const { token } = await createUserWithToken(app);
    const name = `Café Society ${unique('x')}`;
    const created = await call('/api/organizations', token, 'POST', { name, description: '  Coffee  ', id: 'chosen', role: 'member' });
    expect(created.status).toBe(201);
    const { organization } = created.body;
    expect(organization).toMatchObject({ name, description: 'Coffee', role: 'owner' });
    expect(organization.slug).toMatch(/^cafe-society-x-/);
    expect(organization.id).not.toBe('chosen');
    expect(Object.keys(organization).sort()).toEqual(['createdAt', 'description', 'id', 'name', 'role', 'slug', 'updatedAt']);

    const fetched = await call(`/api/organizations/${organization.id}`, token);
    expect(fetched).toEqual({ status: 200, body: { organization } });
  });

  it('refuses a malformed slug and a name that gives no slug', async () => {
    const { token } = await createUserWithToken(app);
    for (const slug of ['ab', 'Upper-Case', 'double--hyphen', '-leading', 'trailing-', 'spa ce', 'x'.repeat(49)]) {
      const response = await call('/api/organizations', token, 'POST', { name: 'Acme', slug });
      expect(response.status, slug).toBe(400);
      expect(response.body.error.details[0].path).toBe('slug');
    }
    const noSlug = await call('/api/organizations', token, 'POST', { name: '!!' });
    expect(noSlug.status).toBe(400);
    expect((await call('/api/organizations', token, 'POST', { slug: unique('no-name') })).status).toBe(400);
  });

  it('answers 409 SLUG_TAKEN for a slug in use, on create and on update', async () => {
    const { token } = await createUserWithToken(app);
    const first = await createOrganization(token);
    const second = await createOrganization(token);
    const duplicate = await call('/api/organizations', token, 'POST', { name: 'Other', slug: first.slug });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('SLUG_TAKEN');
    const renamed = await call(`/api/organizations/${second.id}`, token, 'PUT', { slug: first.slug });
    expect(renamed.status).toBe(409);
    expect(renamed.body.error.code).toBe('SLUG_TAKEN');
  });

  it('hides an organization from non-members exactly like a missing one', async () => {
    const { organization, outsider } = await organizationWithTeam();
    const hidden = await call(`/api/organizations/${organization.id}`, outsider.token);
    const missing = await call('/api/organizations/does-not-exist', outsider.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
    for (const [method, path] of [
      ['PUT', ''],
      ['DELETE', ''],
      ['GET', '/members'],
      ['GET', '/invites'],
      ['POST', '/invite'],
    ] as const) {
      const response = await call(`/api/organizations/${organization.id}${path}`, outsider.token, method, method === 'GET' || method === 'DELETE' ? undefined : { name: 'x', email: 'x@example.com' });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('lets owners and admins update, and only owners delete', async () => {
    const { organization, owner, admin, member } = await organizationWithTeam();
    expect((await call(`/api/organizations/${organization.id}`, member.token, 'PUT', { name: 'Nope' })).status).toBe(403);
    const updated = await call(`/api/organizations/${organization.id}`, admin.token, 'PUT', { name: 'Renamed', description: null });
    expect(updated.status).toBe(200);
    expect(updated.body.organization).toMatchObject({ name: 'Renamed', description: null, role: 'admin' });
    expect((await call(`/api/organizations/${organization.id}`, admin.token, 'DELETE')).status).toBe(403);
    expect((await call(`/api/organizations/${organization.id}`, member.token, 'DELETE')).status).toBe(403);
    expect((await call(`/api/organizations/${organization.id}`, owner.token, 'DELETE')).status).toBe(204);
    expect((await call(`/api/organizations/${organization.id}`, owner.token)).status).toBe(404);
    expect(await app.context.prisma.orgMember.count({ where: { organizationId: organization.id } })).toBe(0);
  });

  it('lists the caller’s organizations with its role, page by page', async () => {
    const { token } = await createUserWithToken(app);
    const created = [await createOrganization(token), await createOrganization(token), await createOrganization(token)];
    const first = await call('/api/organizations?limit=2', token);
    expect(first.status).toBe(200);
    expect(first.body.organizations).toHaveLength(2);
    expect(first.body.organizations[0].role).toBe('owner');
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(`/api/organizations?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, token);
    expect(second.body.organizations).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const ids = [...first.body.organizations, ...second.body.organizations].map((organization: { id: string }) => organization.id);
    expect(ids.sort()).toEqual(created.map((organization) => organization.id).sort());
    for (const limit of ['0', '201', 'abc']) {
      expect((await call(`/api/organizations?limit=${limit}`, token)).status).toBe(400);
    }
  });
});

describe('members and roles', () => {
  it('lists members with their user details', async () => {
    const { organization, member, ids } = await organizationWithTeam();
    // Names travel as text through the database's JSON on SQLite: quotes, backslashes and emoji intact.
    const name = 'Zoë "Z" \\ O\'Brien 🚀';
    await app.context.prisma.user.update({ where: { id: member.user.id }, data: { name } });
    const listed = await call(`/api/organizations/${organization.id}/members?limit=2`, member.token);
    expect(listed.status).toBe(200);
    expect(listed.body.members).toHaveLength(2);
    const rest = await call(`/api/organizations/${organization.id}/members?cursor=${listed.body.nextCursor}`, member.token);
    const all = [...listed.body.members, ...rest.body.members];
    // In id order, across pages.
    expect(all.map((one: { id: string }) => one.id)).toEqual(Object.values(ids).sort());
    // Past the end: an empty page for a member; the same page is 404 for a stranger.
    const past = await call(`/api/organizations/${organization.id}/members?cursor=${'z'.repeat(30)}`, member.token);
    expect([past.status, past.body.members, past.body.nextCursor]).toEqual([200, [], null]);
    // The list is read with SQL: its date must be the one Prisma holds, written as the API writes dates.
    const row = await app.context.prisma.orgMember.findUniqueOrThrow({ where: { id: ids.member } });
    expect(all.find((one: { id: string }) => one.id === ids.member)).toEqual({
      id: ids.member,
      userId: member.user.id,
      email: member.user.email,
      name,
      role: 'member',
      organizationId: organization.id,
      joinedAt: row.joinedAt.toISOString(),
    });
  });

  it('shows no page of members to a stranger or a member who left, with or without a cursor', async () => {
    const { organization, member, outsider, ids } = await organizationWithTeam();
    const base = `/api/organizations/${organization.id}/members`;
    const pages = ['', '?limit=1', `?cursor=${ids.owner}`, `?cursor=${'0'.repeat(25)}`, `?cursor=${'z'.repeat(30)}`];
    for (const query of pages) {
      const stranger = await call(`${base}${query}`, outsider.token);
      expect([stranger.status, stranger.body.error?.code], `stranger ${query}`).toEqual([404, 'NOT_FOUND']);
    }
    expect((await call(`${base}/${ids.member}`, member.token, 'DELETE')).status).toBe(204);
    for (const query of pages) {
      const left = await call(`${base}${query}`, member.token);
      expect([left.status, left.body.error?.code], `left ${query}`).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('lets admins remove members but not owners or other admins', async () => {
    const { organization, owner, admin, ids } = await organizationWithTeam();
    const otherAdmin = await createUserWithToken(app);
    const other = await app.context.prisma.orgMember.create({ data: { organizationId: organization.id, userId: otherAdmin.user.id, role: 'admin' } });
    const base = `/api/organizations/${organization.id}/members`;
    expect((await call(`${base}/${ids.owner}`, admin.token, 'DELETE')).status).toBe(403);
    expect((await call(`${base}/${other.id}`, admin.token, 'DELETE')).status).toBe(403);
    expect((await call(`${base}/${ids.member}`, admin.token, 'DELETE')).status).toBe(204);
    expect((await call(`${base}/${other.id}`, owner.token, 'DELETE')).status).toBe(204);
    expect((await call(`${base}/${ids.admin}`, admin.token, 'DELETE')).status).toBe(204);
  });

  it('never lets the last owner leave or be demoted', async () => {
    const { organization, owner, ids } = await organizationWithTeam();
    const base = `/api/organizations/${organization.id}/members/${ids.owner}`;
    const leave = await call(base, owner.token, 'DELETE');
    expect(leave.status).toBe(409);
    expect(leave.body.error.code).toBe('LAST_OWNER');
    const demote = await call(`${base}/role`, owner.token, 'PUT', { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('LAST_OWNER');
  });

  it('lets an owner promote another owner, after which the first may step down', async () => {
    const { organization, owner, member, ids } = await organizationWithTeam();
    const base = `/api/organizations/${organization.id}/members`;
    const promoted = await call(`${base}/${ids.member}/role`, owner.token, 'PUT', { role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.member).toMatchObject({ id: ids.member, role: 'owner' });
    expect((await call(`${base}/${ids.owner}/role`, owner.token, 'PUT', { role: 'member' })).status).toBe(200);
    // The role is read on every request: the former owner is a member now.
    expect((await call(`${base}/${ids.member}/role`, owner.token, 'PUT', { role: 'member' })).status).toBe(403);
    expect((await call(`/api/organizations/${organization.id}`, member.token)).body.organization.role).toBe('owner');
  });

  it('lets only owners change roles, to known roles, of members of this organization', async () => {
    const { organization, admin, owner, ids } = await organizationWithTeam();
    const base = `/api/organizations/${organization.id}/members`;
    expect((await call(`${base}/${ids.member}/role`, admin.token, 'PUT', { role: 'admin' })).status).toBe(403);
    expect((await call(`${base}/${ids.member}/role`, owner.token, 'PUT', { role: 'superuser' })).status).toBe(400);
    const elsewhere = await organizationWithTeam();
    const foreign = await call(`${base}/${elsewhere.ids.member}/role`, owner.token, 'PUT', { role: 'admin' });
    expect(foreign.status).toBe(404);
    expect((await call(`${base}/${elsewhere.ids.member}`, owner.token, 'DELETE')).status).toBe(404);
  });
});

describe('an account taken over by its mailbox owner', () => {
  it('leaves every organization (deleting those it alone owned) and its pending invites die', async () => {
    const squatter = await createUserWithToken(app);
    const accomplice = await createUserWithToken(app);
    const alone = await createOrganization(squatter.token);
    const shared = await createOrganization(squatter.token);
    await app.context.prisma.orgMember.create({ data: { organizationId: shared.id, userId: accomplice.user.id, role: 'owner' } });
    const joined = await createOrganization(accomplice.token);
    await app.context.prisma.orgMember.create({ data: { organizationId: joined.id, userId: squatter.user.id, role: 'admin' } });
    const invite = await call(`/api/organizations/${shared.id}/invite`, squatter.token, 'POST', { email: 'friend@example.com' });
    expect(invite.status).toBe(201);
    const inviteToken = invite.body.inviteUrl.split('/invite/')[1];

    const owner = await proveMailbox(app.context, squatter.user);
    expect(owner).toMatchObject({ id: squatter.user.id, emailVerified: true });

    expect(await app.context.prisma.orgMember.count({ where: { userId: squatter.user.id } })).toBe(0);
    expect(await app.context.prisma.organization.findUnique({ where: { id: alone.id } })).toBeNull();
    expect(await app.context.prisma.orgMember.count({ where: { organizationId: shared.id, role: 'owner' } })).toBe(1);
    expect(await app.context.prisma.orgMember.count({ where: { organizationId: joined.id } })).toBe(1);
    const preview = await call(`/api/organizations/invite/${inviteToken}`, accomplice.token);
    expect(preview.status).toBe(410);
    expect(preview.body.error.code).toBe('INVITE_REVOKED');
    const { token } = await issueTokenResponse(app.context, owner, testSignIn);
    expect((await call('/api/organizations', token)).body.organizations).toEqual([]);
  });
});
