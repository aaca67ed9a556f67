/**
 * Account deletion and export (every app) and the operators' API of the admin module (CONTRACT
 * B.15), against a generated app running as its own process. Shared by the full fixture on SQLite
 * (security-admin.test.ts, which adds the attacks and every sign-in method) and orgs-postgresql,
 * which also runs two instances on one database. Both fixtures have the organizations module.
 */
import { expect, it } from 'vitest';
import { register, uniqueEmail, type Account } from '../helpers/accounts.js';
import { runAdminCommand } from '../helpers/admin-command.js';
import { call, startAppProcess } from '../helpers/app-process.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import type { RunningApp } from '../helpers/running-app.js';

export const PASSWORD = 'correct horse battery staple';

type Reply = Awaited<ReturnType<typeof call>>;

export interface AdminScenarioSetup {
  fixture: () => PreparedFixture;
  running: RunningApp;
  /** Start a second instance on the same database (PostgreSQL) for the "every instance" rules. */
  twoInstances?: boolean;
}

export function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.error.code, JSON.stringify(reply.body)).toBe(code);
}

/** A new account made admin the only way there is: `npm run admin -- grant <email>`. */
export async function createAdmin(setup: Pick<AdminScenarioSetup, 'fixture' | 'running'>): Promise<Account> {
  const admin = await register(setup.running, { password: PASSWORD, email: uniqueEmail('admin') });
  expect(await runAdminCommand(setup.fixture(), setup.running.databaseUrl, 'grant', admin.email)).toContain(`${admin.email} is an admin.`);
  return admin;
}

export function describeAdminScenarios(setup: AdminScenarioSetup): void {
  const { running } = setup;
  const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);
  const user = () => register(running, { password: PASSWORD });
  const me = (token: string) => api('/api/auth/me', { token });
  const login = (email: string, password = PASSWORD) => api('/api/auth/login', { json: { email, password } });

  async function impersonate(admin: Account, target: Account): Promise<string> {
    const reply = await api(`/api/admin/users/${target.userId}/impersonate`, { token: admin.token, json: { reason: 'support ticket 7' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.token;
  }

  /** Every route of /api/admin but stop, against `target`, with what an admin gets. */
  const adminRoutes = (target: string): { method: string; path: string; json?: unknown; ok: number }[] => [
    { method: 'GET', path: '/api/admin/users', ok: 200 },
    { method: 'GET', path: `/api/admin/users/${target}`, ok: 200 },
    { method: 'POST', path: `/api/admin/users/${target}/ban`, json: { reason: 'spam' }, ok: 200 },
    { method: 'POST', path: `/api/admin/users/${target}/unban`, ok: 200 },
    { method: 'DELETE', path: `/api/admin/users/${target}/sessions`, ok: 204 },
    { method: 'PUT', path: `/api/admin/users/${target}/role`, json: { role: 'user' }, ok: 200 },
    { method: 'POST', path: `/api/admin/users/${target}/impersonate`, json: { reason: 'support' }, ok: 200 },
    { method: 'DELETE', path: `/api/admin/users/${target}`, json: {}, ok: 204 },
  ];

  it('/api/admin: 401 without a token, 403 FORBIDDEN for a user, 403 IMPERSONATION_FORBIDDEN for an impersonation session, and each route works for an admin', async () => {
    const admin = await createAdmin(setup);
    const plain = await user();
    const impersonated = await user();
    const impersonation = await impersonate(admin, impersonated);
    const victim = await user();
    for (const route of adminRoutes(victim.userId)) {
      const label = `${route.method} ${route.path}`;
      expect((await api(route.path, { method: route.method, json: route.json })).status, label).toBe(401);
      expectError(await api(route.path, { method: route.method, json: route.json, token: plain.token }), 403, 'FORBIDDEN');
      expectError(await api(route.path, { method: route.method, json: route.json, token: impersonation }), 403, 'IMPERSONATION_FORBIDDEN');
    }
    // None of the refused calls changed anything: the user is there, signed in, not banned, no admin.
    expect((await me(victim.token)).status).toBe(200);
    const detail = await api(`/api/admin/users/${victim.userId}`, { token: admin.token });
    expect(detail.body.user).toMatchObject({ role: 'user', banned: false });
    expect(detail.body.sessions.map((session: { method: string }) => session.method)).toEqual(['password']);
    // Each route works for the admin, on a fresh user each time.
    for (let index = 0; index < adminRoutes('').length; index++) {
      const route = adminRoutes((await user()).userId)[index]!;
      const reply = await api(route.path, { method: route.method, json: route.json, token: admin.token });
      expect(reply.status, `${route.method} ${route.path}: ${JSON.stringify(reply.body)}`).toBe(route.ok);
    }
    // The one route an impersonation session may call under /api/admin ends it.
    expect((await api('/api/admin/impersonation/stop', { method: 'POST', token: plain.token })).status).toBe(403);
    expect((await api('/api/admin/impersonation/stop', { method: 'POST', token: impersonation })).status).toBe(204);
    expect((await me(impersonation)).status).toBe(401);
    expect((await me(impersonated.token)).status).toBe(200);
  }, 120_000);

  it('a ban ends every session at once and refuses the next sign-in with 403 ACCOUNT_BANNED, giving the end but not the reason; unban lets the user sign in again', async () => {
    const admin = await createAdmin(setup);
    const target = await user();
    const banned = await api(`/api/admin/users/${target.userId}/ban`, { token: admin.token, json: { reason: 'sold his account', expiresInHours: 48 } });
    expect(banned.body.user).toMatchObject({ id: target.userId, banned: true, banReason: 'sold his account', banExpiresAt: expect.any(String) });
    expect((await me(target.token)).status).toBe(401);
    const refused = await login(target.email);
    expectError(refused, 403, 'ACCOUNT_BANNED');
    expect(refused.body.error.message).toContain(banned.body.user.banExpiresAt);
    expect(refused.body.error.message).not.toContain('sold');
    const found = await api(`/api/admin/users?banned=true&query=${encodeURIComponent(target.email)}`, { token: admin.token });
    expect(found.body.users.map((listed: { id: string }) => listed.id)).toEqual([target.userId]);

    expect((await api(`/api/admin/users/${target.userId}/unban`, { method: 'POST', token: admin.token })).body.user.banned).toBe(false);
    expect((await me(target.token)).status).toBe(401);
    expect((await login(target.email)).status).toBe(200);
  });

  it('the last admin cannot stop being one (409 LAST_ADMIN), nor can `npm run admin -- revoke` take the role from them', async () => {
    const admin = await createAdmin(setup);
    // Every other admin of this database loses the role first, through the API.
    const admins = await api('/api/admin/users?role=admin&limit=200', { token: admin.token });
    for (const other of admins.body.users.filter((listed: { id: string }) => listed.id !== admin.userId)) {
      expect((await api(`/api/admin/users/${other.id}/role`, { method: 'PUT', token: admin.token, json: { role: 'user' } })).status).toBe(200);
    }
    expectError(await api(`/api/admin/users/${admin.userId}/role`, { method: 'PUT', token: admin.token, json: { role: 'user' } }), 409, 'LAST_ADMIN');
    await expect(runAdminCommand(setup.fixture(), running.databaseUrl, 'revoke', admin.email)).rejects.toThrow(/last admin/);
    expectError(await api('/api/auth/account', { method: 'DELETE', token: admin.token, json: { confirm: admin.email } }), 409, 'LAST_ADMIN');
    expect((await api('/api/admin/users', { token: admin.token })).status).toBe(200);

    const next = await createAdmin(setup);
    expect((await api(`/api/admin/users/${admin.userId}/role`, { method: 'PUT', token: admin.token, json: { role: 'user' } })).body.user.role).toBe('user');
    expectError(await api('/api/admin/users', { token: admin.token }), 403, 'FORBIDDEN');
    expect((await api('/api/admin/users', { token: next.token })).status).toBe(200);
  }, 60_000);

  it('deleting an account: its organizations alone go with it, one it alone owns with members refuses (409 SOLE_OWNER, listed); then its tokens get 401 and the address registers again', async () => {
    const owner = await user();
    const colleague = await user();
    const organization = async (token: string, name: string) => (await api('/api/organizations', { token, json: { name } })).body.organization;
    const solo = await organization(owner.token, 'Solo workshop');
    const team = await organization(owner.token, 'Team workshop');
    const invite = await api(`/api/organizations/${team.id}/invite`, { token: owner.token, json: { email: colleague.email } });
    const inviteToken = new URL(invite.body.inviteUrl).pathname.split('/').pop();
    expect((await api(`/api/organizations/invite/${inviteToken}/accept`, { method: 'POST', token: colleague.token })).status).toBe(200);

    const refused = await api('/api/auth/account', { method: 'DELETE', token: owner.token, json: { confirm: owner.email } });
    expectError(refused, 409, 'SOLE_OWNER');
    expect(refused.body.error.details).toEqual([{ id: team.id, name: 'Team workshop', slug: team.slug }]);
    expect((await me(owner.token)).status).toBe(200);

    const members = await api(`/api/organizations/${team.id}/members`, { token: owner.token });
    const colleagueMember = members.body.members.find((member: { userId: string }) => member.userId === colleague.userId);
    expect((await api(`/api/organizations/${team.id}/members/${colleagueMember.id}/role`, { method: 'PUT', token: owner.token, json: { role: 'owner' } })).status).toBe(200);
    expectError(await api('/api/auth/account', { method: 'DELETE', token: owner.token, json: { confirm: colleague.email } }), 400, 'VALIDATION_ERROR');
    expect((await api('/api/auth/account', { method: 'DELETE', token: owner.token, json: { confirm: owner.email } })).status).toBe(204);

    expectError(await me(owner.token), 401, 'UNAUTHENTICATED');
    expectError(await login(owner.email), 401, 'INVALID_CREDENTIALS');
    expect((await api(`/api/organizations/${solo.id}`, { token: colleague.token })).status).toBe(404);
    const kept = await api(`/api/organizations/${team.id}/members`, { token: colleague.token });
    expect(kept.body.members.map((member: { userId: string; role: string }) => [member.userId, member.role])).toEqual([[colleague.userId, 'owner']]);
    const again = await api('/api/auth/register', { json: { email: owner.email, password: 'a brand new password here' } });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(owner.userId);
    expect((await api(`/api/organizations/${team.id}`, { token: again.body.token })).status).toBe(404);
  });

  it('an admin deletes a user: 409 SOLE_OWNER unless deleteSoleOwnedOrganizations, which deletes those organizations too', async () => {
    const admin = await createAdmin(setup);
    const owner = await user();
    const member = await user();
    const team = (await api('/api/organizations', { token: owner.token, json: { name: 'Shared' } })).body.organization;
    const invite = await api(`/api/organizations/${team.id}/invite`, { token: owner.token, json: { email: member.email } });
    await api(`/api/organizations/invite/${new URL(invite.body.inviteUrl).pathname.split('/').pop()}/accept`, { method: 'POST', token: member.token });

    expectError(await api(`/api/admin/users/${owner.userId}`, { method: 'DELETE', token: admin.token, json: {} }), 409, 'SOLE_OWNER');
    expect((await api(`/api/admin/users/${owner.userId}`, { method: 'DELETE', token: admin.token, json: { deleteSoleOwnedOrganizations: true } })).status).toBe(204);
    expect((await me(owner.token)).status).toBe(401);
    expect((await api(`/api/organizations/${team.id}`, { token: member.token })).status).toBe(404);
    expect((await me(member.token)).status).toBe(200);
  });

  it('the export: one JSON download of the profile, sessions, sign-in methods and organizations, with no hash, secret or token in it', async () => {
    const account = await register(running, { password: PASSWORD, name: 'Ada Export' });
    const second = await login(account.email);
    const organization = (await api('/api/organizations', { token: account.token, json: { name: 'Export Ltd' } })).body.organization;
    const reply = await api('/api/auth/account/export', { token: account.token });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-disposition')).toMatch(/^attachment; filename="?account-\d{4}-\d{2}-\d{2}\.json"?$/);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toMatchObject({
      user: { id: account.userId, email: account.email, name: 'Ada Export' },
      signInMethods: { password: { set: true } },
      organizations: [{ id: organization.id, name: 'Export Ltd', slug: organization.slug, role: 'owner' }],
      role: 'user',
    });
    expect(reply.body.sessions).toHaveLength(2);
    const text = JSON.stringify(reply.body);
    for (const secret of [PASSWORD, account.token, second.body.token, second.body.refreshToken]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/hash|\$2[aby]\$/i);
  });

  if (setup.twoInstances) {
    it('two instances on one database: a ban and a role taken away through one take effect on the other at the next request', async () => {
      const other = await startAppProcess(setup.fixture().dir, running.env());
      try {
        const elsewhere = (path: string, init: Parameters<typeof call>[2] = {}) => call(other.url, path, init);
        const admin = await createAdmin(setup);
        const colleague = await createAdmin(setup);
        const target = await user();
        const impersonation = await impersonate(colleague, await user());
        for (const token of [target.token, colleague.token, impersonation]) expect((await elsewhere('/api/auth/me', { token })).status).toBe(200);
        expect((await elsewhere('/api/admin/users', { token: colleague.token })).status).toBe(200);

        expect((await api(`/api/admin/users/${target.userId}/ban`, { token: admin.token, json: { reason: 'abuse' } })).status).toBe(200);
        expectError(await elsewhere('/api/auth/me', { token: target.token }), 401, 'UNAUTHENTICATED');
        expectError(await elsewhere('/api/auth/login', { json: { email: target.email, password: PASSWORD } }), 403, 'ACCOUNT_BANNED');

        expect((await api(`/api/admin/users/${colleague.userId}/role`, { method: 'PUT', token: admin.token, json: { role: 'user' } })).status).toBe(200);
        expectError(await elsewhere('/api/admin/users', { token: colleague.token }), 403, 'FORBIDDEN');
        expectError(await elsewhere('/api/auth/me', { token: impersonation }), 401, 'UNAUTHENTICATED');
        expect((await elsewhere('/api/auth/me', { token: colleague.token })).status).toBe(200);
      } finally {
        await other.stop();
      }
    }, 60_000);
  }
}
