import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../src/modules/admin/admin-roles.js';
import { recordEvent, userRef } from '../src/modules/auth/events.js';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// The operators' events (B.16 rule 3 with admin), with the admin as their actor, and
// GET /api/admin/audit-log (B.16 rule 5): every event, for admins only, also filtered by actorId,
// targetId and organizationId.

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function signedIn(name = 'user') {
  const account = await createUserWithToken(app, uniqueEmail(name));
  secrets.add(account.token, account.refreshToken);
  return account;
}

/** A signed-in admin (the role given as `npm run admin -- grant` gives it). */
async function createAdmin() {
  const admin = await signedIn('admin');
  await setRole(app.context, admin.user.id, 'admin');
  return admin;
}

const adminLog = (token: string, query = '') => call(app, `/api/admin/audit-log${query}`, { token });
const ids = (answer: { body: { events: { id: string }[] } }) => answer.body.events.map((event) => event.id);

describe('who reads the admin log', () => {
  it('refuses a user who is not an admin (403 FORBIDDEN), and a caller without a token (401)', async () => {
    const user = await signedIn();
    const refused = await adminLog(user.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(refused.body.events).toBeUndefined();
    expect((await call(app, '/api/admin/audit-log')).status).toBe(401);
  });

  it('refuses an impersonation session (403 IMPERSONATION_FORBIDDEN), even of an admin', async () => {
    await createAdmin();
    const admin = await createAdmin();
    const target = await signedIn('target');
    const started = await call(app, `/api/admin/users/${target.user.id}/impersonate`, {
      method: 'POST',
      token: admin.token,
      json: { reason: 'support ticket 7' },
    });
    expect(started.status).toBe(200);
    secrets.addFrom(started.body);
    const refused = await adminLog(started.body.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('IMPERSONATION_FORBIDDEN');
  });

  it('refuses an admin at the next request once the role is taken away', async () => {
    await createAdmin();
    const admin = await createAdmin();
    expect((await adminLog(admin.token)).status).toBe(200);
    await setRole(app.context, admin.user.id, 'user');
    expect((await adminLog(admin.token)).status).toBe(403);
  });
});

describe('the operators’ events', () => {
  it('records a ban and an unban, by the admin, with the reason and the end', async () => {
    const admin = await createAdmin();
    const target = await signedIn('banned');
    const byAdmin = { type: 'admin', id: admin.user.id };
    expect(
      (
        await call(app, `/api/admin/users/${target.user.id}/ban`, {
          method: 'POST',
          token: admin.token,
          json: { reason: 'spam', expiresInHours: 2 },
          headers: clientHeaders('admin console'),
        })
      ).status,
    ).toBe(200);
    expect((await call(app, `/api/admin/users/${target.user.id}/unban`, { method: 'POST', token: admin.token })).status).toBe(200);
    expectEvent(await onlyEvent(app, 'admin.user_banned', { targetId: target.user.id }), {
      actor: byAdmin,
      target: { type: 'user', id: target.user.id },
      ip: '127.0.0.1',
      userAgent: 'admin console',
      metadata: { reason: 'spam', until: expect.stringMatching(/^\d{4}-/) },
    });
    expectEvent(await onlyEvent(app, 'admin.user_unbanned', { targetId: target.user.id }), {
      actor: byAdmin,
      target: { type: 'user', id: target.user.id },
    });
  });

  it("records ending a user's sessions, and a role change, by the admin", async () => {
    const admin = await createAdmin();
    const target = await signedIn('target');
    const byAdmin = { type: 'admin', id: admin.user.id };
    expect((await call(app, `/api/admin/users/${target.user.id}/sessions`, { method: 'DELETE', token: admin.token })).status).toBe(204);
    expectEvent(await onlyEvent(app, 'admin.sessions_ended', { targetId: target.user.id }), {
      actor: byAdmin,
      target: { type: 'user', id: target.user.id },
    });
    expect(
      (await call(app, `/api/admin/users/${target.user.id}/role`, { method: 'PUT', token: admin.token, json: { role: 'admin' } })).status,
    ).toBe(200);
    expectEvent(await onlyEvent(app, 'admin.role_changed', { targetId: target.user.id }), {
      actor: byAdmin,
      target: { type: 'user', id: target.user.id },
      metadata: { role: 'admin' },
    });
  });

  it("records an impersonation's start and stop, and names the admin as the actor of what it does meanwhile", async () => {
    await createAdmin();
    const admin = await createAdmin();
    const target = await signedIn('impersonated');
    const byAdmin = { type: 'admin', id: admin.user.id };
    const started = await call(app, `/api/admin/users/${target.user.id}/impersonate`, {
      method: 'POST',
      token: admin.token,
      json: { reason: 'ticket 42' },
      headers: clientHeaders('support desk'),
    });
    expect(started.status).toBe(200);
    secrets.addFrom(started.body);
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: target.user.id, method: 'impersonation' } });
    expectEvent(await onlyEvent(app, 'admin.impersonation_started', { targetId: target.user.id }), {
      actor: byAdmin,
      target: { type: 'user', id: target.user.id },
      userAgent: 'support desk',
      metadata: { reason: 'ticket 42', sessionId: session.id },
    });
    expect((await call(app, '/api/admin/impersonation/stop', { method: 'POST', token: started.body.token })).status).toBe(204);
    expectEvent(await onlyEvent(app, 'admin.impersonation_stopped', { targetId: target.user.id }), {
      actor: byAdmin,
      target: { type: 'user', id: target.user.id },
      metadata: { sessionId: session.id },
    });
  });

  it('names the admin as the actor of a sign-out done in an impersonation session', async () => {
    await createAdmin();
    const admin = await createAdmin();
    const target = await signedIn('impersonated');
    const started = await call(app, `/api/admin/users/${target.user.id}/impersonate`, {
      method: 'POST',
      token: admin.token,
      json: { reason: 'ticket 43' },
    });
    secrets.addFrom(started.body);
    expect((await call(app, '/api/auth/logout', { method: 'POST', token: started.body.token })).status).toBe(204);
    expectEvent(await onlyEvent(app, 'auth.signed_out', { targetId: target.user.id }), {
      actor: { type: 'admin', id: admin.user.id },
      target: { type: 'user', id: target.user.id },
    });
  });

  it("records a user's deletion by an admin as admin.user_deleted", async () => {
    const admin = await createAdmin();
    const target = await signedIn('deleted');
    expect((await call(app, `/api/admin/users/${target.user.id}`, { method: 'DELETE', token: admin.token, json: {} })).status).toBe(204);
    expectEvent(await onlyEvent(app, 'admin.user_deleted', { targetId: target.user.id }), {
      actor: { type: 'admin', id: admin.user.id },
      target: { type: 'user', id: target.user.id },
    });
    expect(await auditRows(app, { action: 'account.deleted', targetId: target.user.id })).toEqual([]);
  });

  it('records nothing for a refused operator action (banning an admin)', async () => {
    const admin = await createAdmin();
    const other = await createAdmin();
    const before = await app.context.prisma.auditEvent.count();
    expect(
      (await call(app, `/api/admin/users/${other.user.id}/ban`, { method: 'POST', token: admin.token, json: { reason: 'no' } })).status,
    ).toBe(403);
    expect(await app.context.prisma.auditEvent.count()).toBe(before);
  });
});

describe('GET /api/admin/audit-log', () => {
  it('shows every event, newest first, a keyset page at a time', async () => {
    const admin = await createAdmin();
    const everything = (await auditRows(app)).map((row) => row.id).reverse();
    expect(everything.length).toBeGreaterThan(3);
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await adminLog(admin.token, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      pages.push(...ids(page));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(pages.slice(-everything.length)).toEqual(everything);
  });

  it('filters by actorId, targetId, organizationId and action, together with since and until', async () => {
    const admin = await createAdmin();
    const someone = await signedIn('filtered');
    const third = await signedIn('third');
    const inOrg = (organizationId: string, target: string) =>
      recordEvent(app.context, app.context.prisma, {
        action: 'account.exported',
        actor: userRef(someone.user.id),
        target: userRef(target),
        organizationId,
      });
    await inOrg('org-filter-a', someone.user.id);
    await inOrg('org-filter-b', third.user.id);
    await inOrg('org-filter-a', third.user.id);
    const byActor = await adminLog(admin.token, `?actorId=${someone.user.id}`);
    expect(byActor.body.events.every((event: { actor: { id: string } }) => event.actor.id === someone.user.id)).toBe(true);
    expect(byActor.body.events.map((event: { action: string }) => event.action)).toEqual([
      'account.exported',
      'account.exported',
      'account.exported',
      'auth.signed_in',
    ]);
    const byTarget = await adminLog(admin.token, `?targetId=${third.user.id}`);
    expect(
      byTarget.body.events.map((event: { actor: { id: string }; organizationId: string }) => [event.actor.id, event.organizationId]),
    ).toEqual([
      [someone.user.id, 'org-filter-a'],
      [someone.user.id, 'org-filter-b'],
      [third.user.id, null],
    ]);
    const byOrganization = await adminLog(admin.token, '?organizationId=org-filter-a');
    expect(byOrganization.body.events.map((event: { target: { id: string } }) => event.target.id)).toEqual([
      third.user.id,
      someone.user.id,
    ]);
    const combined = await adminLog(
      admin.token,
      `?organizationId=org-filter-a&targetId=${third.user.id}&actorId=${someone.user.id}&action=account.exported`,
    );
    expect(combined.body.events).toHaveLength(1);
    const at = combined.body.events[0].occurredAt;
    expect(ids(await adminLog(admin.token, `?targetId=${third.user.id}&since=${at}&until=${at}`))).toEqual(ids(combined));
    expect((await adminLog(admin.token, `?targetId=${third.user.id}&action=auth.signed_out`)).body.events).toEqual([]);
  });

  it('answers 400 VALIDATION_ERROR for a bad filter', async () => {
    const admin = await createAdmin();
    for (const query of [`?actorId=${'x'.repeat(101)}`, '?since=soon', '?action=Bad', '?cursor=next', '?limit=1000']) {
      const answer = await adminLog(admin.token, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('secrets', () => {
  it('no event holds a token this file sent or received', async () => {
    expect(secrets.size).toBeGreaterThan(20);
    await secrets.expectNoneIn(app);
  });
});
