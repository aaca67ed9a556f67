import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// The organizations' events (B.16 rule 3 with orgs), each with its organizationId, and
// GET /api/organizations/:orgId/audit-log (B.16 rule 5): owners and admins read their organization's
// events; a member is refused (403), a non-member is told nothing exists (404, as B.9 has it).

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

let counter = 0;

async function signedIn(name = 'org') {
  const account = await createUserWithToken(app, uniqueEmail(name));
  secrets.add(account.token, account.refreshToken);
  return account;
}

async function createOrganization(token: string) {
  const created = await call(app, '/api/organizations', {
    method: 'POST',
    token,
    json: { name: 'Audit Co', slug: `audit-co-${++counter}-${Date.now().toString(36)}` },
  });
  expect(created.status).toBe(201);
  return created.body.organization.id as string;
}

/** A user who joins the organization through an invite, in `role`. */
async function join(orgId: string, ownerToken: string, role: 'member' | 'admin' = 'member') {
  const invitee = await signedIn(role);
  const invited = await call(app, `/api/organizations/${orgId}/invite`, {
    method: 'POST',
    token: ownerToken,
    json: { email: invitee.user.email, role },
  });
  expect(invited.status).toBe(201);
  secrets.addFrom(invited.body);
  const inviteToken = invited.body.inviteUrl.split('/invite/')[1] as string;
  const accepted = await call(app, `/api/organizations/invite/${inviteToken}/accept`, {
    method: 'POST',
    token: invitee.token,
    headers: clientHeaders('invitee agent'),
  });
  expect(accepted.status).toBe(200);
  return { ...invitee, inviteId: invited.body.invite.id as string, memberId: accepted.body.member.id as string };
}

const auditLog = (orgId: string, token: string, query = '') => call(app, `/api/organizations/${orgId}/audit-log${query}`, { token });

describe('who reads the organization log', () => {
  it('refuses a member (403 FORBIDDEN) and shows them nothing', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const member = await join(orgId, owner.token, 'member');
    const refused = await auditLog(orgId, member.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(refused.body.events).toBeUndefined();
  });

  it('answers a non-member 404, as for an organization that does not exist, and an admin of another organization too', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const outsider = await signedIn('outsider');
    const otherOwner = await signedIn('other-owner');
    const otherOrg = await createOrganization(otherOwner.token);
    for (const token of [outsider.token, otherOwner.token]) {
      const refused = await auditLog(orgId, token);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('NOT_FOUND');
    }
    expect((await auditLog('no-such-organization', owner.token)).status).toBe(404);
    // Asking its own log for another organization's events gets only its own.
    const own = await auditLog(otherOrg, otherOwner.token, `?organizationId=${orgId}`);
    expect(own.status).toBe(200);
    expect(own.body.events.map((event: { organizationId: string }) => event.organizationId)).toEqual([otherOrg]);
  });

  it('takes role changes at the next request: a demoted admin is refused, a removed one gets 404', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const admin = await join(orgId, owner.token, 'admin');
    expect((await auditLog(orgId, admin.token)).status).toBe(200);
    expect(
      (
        await call(app, `/api/organizations/${orgId}/members/${admin.memberId}/role`, {
          method: 'PUT',
          token: owner.token,
          json: { role: 'member' },
        })
      ).status,
    ).toBe(200);
    expect((await auditLog(orgId, admin.token)).status).toBe(403);
    expect(
      (await call(app, `/api/organizations/${orgId}/members/${admin.memberId}`, { method: 'DELETE', token: owner.token })).status,
    ).toBe(204);
    expect((await auditLog(orgId, admin.token)).status).toBe(404);
  });

  it("shows owners and admins the organization's events only, newest first, a keyset page at a time, with filters", async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const admin = await join(orgId, owner.token, 'admin');
    await createOrganization(owner.token);
    for (let i = 0; i < 2; i++)
      expect(
        (await call(app, `/api/organizations/${orgId}`, { method: 'PUT', token: owner.token, json: { name: `Renamed ${i}` } })).status,
      ).toBe(200);
    const expected = (await auditRows(app, { organizationId: orgId })).map((row) => row.id).reverse();
    expect(expected.length).toBe(6);
    for (const token of [owner.token, admin.token]) {
      const answer = await auditLog(orgId, token);
      expect(answer.status).toBe(200);
      expect(answer.body.events.map((event: { id: string }) => event.id)).toEqual(expected);
      expect(answer.body.nextCursor).toBeNull();
    }
    const first = await auditLog(orgId, admin.token, '?limit=4');
    const second = await auditLog(orgId, admin.token, `?limit=4&cursor=${first.body.nextCursor}`);
    expect(second.body.nextCursor).toBeNull();
    expect([...first.body.events, ...second.body.events].map((event: { id: string }) => event.id)).toEqual(expected);
    const renamed = await auditLog(orgId, admin.token, '?action=organization.updated');
    expect(renamed.body.events.map((event: { action: string }) => event.action)).toEqual(['organization.updated', 'organization.updated']);
    const since = renamed.body.events[0].occurredAt;
    expect(
      (await auditLog(orgId, admin.token, `?since=${since}&until=${since}`)).body.events.map((event: { id: string }) => event.id),
    ).toEqual([renamed.body.events[0].id]);
    const bad = await auditLog(orgId, admin.token, '?since=last-week');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('the organizations’ events', () => {
  it('records creation, update and deletion by the owner, with the organization as target and organizationId', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    expect(
      (
        await call(app, `/api/organizations/${orgId}`, {
          method: 'PUT',
          token: owner.token,
          json: { name: 'Audit Co Renamed' },
          headers: clientHeaders('update agent'),
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(app, `/api/organizations/${orgId}`, { method: 'DELETE', token: owner.token, headers: clientHeaders('delete agent') }))
        .status,
    ).toBe(204);
    const byOwner = { type: 'user', id: owner.user.id };
    const organization = { type: 'organization', id: orgId };
    expectEvent(await onlyEvent(app, 'organization.created', { organizationId: orgId }), {
      actor: byOwner,
      target: organization,
      organizationId: orgId,
      ip: '127.0.0.1',
      metadata: { slug: expect.stringMatching(/^audit-co-/) },
    });
    expectEvent(await onlyEvent(app, 'organization.updated', { organizationId: orgId }), {
      actor: byOwner,
      target: organization,
      organizationId: orgId,
      userAgent: 'update agent',
      metadata: { changed: 'name' },
    });
    expectEvent(await onlyEvent(app, 'organization.deleted', { organizationId: orgId }), {
      actor: byOwner,
      target: organization,
      organizationId: orgId,
      userAgent: 'delete agent',
    });
  });

  it('records an invite, its acceptance and the new member; a revoked invite; role changes; removal and leaving', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const byOwner = { type: 'user', id: owner.user.id };
    const joined = await join(orgId, owner.token, 'member');
    expectEvent(await onlyEvent(app, 'invite.created', { targetId: joined.inviteId }), {
      actor: byOwner,
      target: { type: 'invite', id: joined.inviteId },
      organizationId: orgId,
      metadata: { email: joined.user.email, role: 'member' },
    });
    const byInvitee = { type: 'user', id: joined.user.id };
    expectEvent(await onlyEvent(app, 'invite.accepted', { targetId: joined.inviteId }), {
      actor: byInvitee,
      target: { type: 'invite', id: joined.inviteId },
      organizationId: orgId,
      userAgent: 'invitee agent',
    });
    expectEvent(await onlyEvent(app, 'member.added', { organizationId: orgId, targetId: joined.user.id }), {
      actor: byInvitee,
      target: { type: 'user', id: joined.user.id },
      organizationId: orgId,
      metadata: { memberId: joined.memberId, role: 'member' },
    });

    const revokedInvite = await call(app, `/api/organizations/${orgId}/invite`, {
      method: 'POST',
      token: owner.token,
      json: { email: uniqueEmail('revoked') },
    });
    secrets.addFrom(revokedInvite.body);
    const inviteId = revokedInvite.body.invite.id as string;
    expect((await call(app, `/api/organizations/${orgId}/invites/${inviteId}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expectEvent(await onlyEvent(app, 'invite.revoked', { targetId: inviteId }), {
      actor: byOwner,
      target: { type: 'invite', id: inviteId },
      organizationId: orgId,
    });

    expect(
      (
        await call(app, `/api/organizations/${orgId}/members/${joined.memberId}/role`, {
          method: 'PUT',
          token: owner.token,
          json: { role: 'admin' },
        })
      ).status,
    ).toBe(200);
    expectEvent(await onlyEvent(app, 'member.role_changed', { organizationId: orgId }), {
      actor: byOwner,
      target: { type: 'user', id: joined.user.id },
      organizationId: orgId,
      metadata: { memberId: joined.memberId, from: 'member', to: 'admin' },
    });

    expect(
      (await call(app, `/api/organizations/${orgId}/members/${joined.memberId}`, { method: 'DELETE', token: owner.token })).status,
    ).toBe(204);
    expectEvent(await onlyEvent(app, 'member.removed', { organizationId: orgId, targetId: joined.user.id }), {
      actor: byOwner,
      target: { type: 'user', id: joined.user.id },
      organizationId: orgId,
      metadata: { memberId: joined.memberId, role: 'admin', left: false },
    });

    const leaver = await join(orgId, owner.token, 'member');
    expect(
      (await call(app, `/api/organizations/${orgId}/members/${leaver.memberId}`, { method: 'DELETE', token: leaver.token })).status,
    ).toBe(204);
    expectEvent(await onlyEvent(app, 'member.removed', { organizationId: orgId, targetId: leaver.user.id }), {
      actor: { type: 'user', id: leaver.user.id },
      target: { type: 'user', id: leaver.user.id },
      organizationId: orgId,
      metadata: { left: true },
    });
  });

  it('records nothing for a refused change (a member trying to invite)', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const member = await join(orgId, owner.token, 'member');
    const before = await app.context.prisma.auditEvent.count();
    const refused = await call(app, `/api/organizations/${orgId}/invite`, {
      method: 'POST',
      token: member.token,
      json: { email: uniqueEmail('x') },
    });
    expect(refused.status).toBe(403);
    expect(await app.context.prisma.auditEvent.count()).toBe(before);
  });

  it('a member sees the events done to their account in their own activity, not the rest of the organization log', async () => {
    const owner = await signedIn('owner');
    const orgId = await createOrganization(owner.token);
    const member = await join(orgId, owner.token, 'member');
    const activity = await call(app, '/api/auth/activity', { token: member.token });
    const actions = activity.body.events.map((event: { action: string }) => event.action);
    expect(actions).toContain('member.added');
    expect(actions).not.toContain('organization.created');
    expect(actions).not.toContain('invite.created');
  });
});

describe('secrets', () => {
  it('no event holds an invite link, token or refresh token this file sent or received', async () => {
    expect(secrets.size).toBeGreaterThan(20);
    await secrets.expectNoneIn(app);
  });
});
