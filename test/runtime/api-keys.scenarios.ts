/**
 * Issue 32: API keys and service accounts (CONTRACT B.14) against a running app, from the view of
 * someone who holds a key, or an account, and wants more. The generated app's own tests
 * (test/api-keys.test.ts, test/organization-keys.test.ts) cover each route's rules in-process; this
 * file keeps the attack pass, which before each fix would have let the attacker through, and what
 * needs two instances.
 */
import { expect, it } from 'vitest';
import { register, type Account } from '../helpers/accounts.js';
import { call, startAppProcess } from '../helpers/app-process.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import type { RunningApp } from '../helpers/running-app.js';
import { createAdmin } from './admin.scenarios.js';

const PASSWORD = 'correct horse battery staple';
const KEY_PATTERN = /^gk_(user|org)_[0-9A-Za-z]{49}$/;
let counter = 0;

export interface ApiKeyScenarioSetup {
  fixture: () => PreparedFixture;
  running: RunningApp;
  /** Account routes of this fixture that must refuse any key: [method, path, body?]. */
  accountRoutes: [string, string, unknown?][];
}

export function describeApiKeyScenarios({ fixture, running, accountRoutes }: ApiKeyScenarioSetup): void {
  const api = (path: string, init: Parameters<typeof call>[2] = {}, url = running.app.url) => call(url, path, init);

  async function userKey(account: Account, body: Record<string, unknown> = {}): Promise<{ key: string; id: string; scopes: string[] }> {
    const made = await api('/api/auth/api-keys', { token: account.token, json: { name: 'script', ...body } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.key).toMatch(KEY_PATTERN);
    return { key: made.body.key, id: made.body.apiKey.id, scopes: made.body.apiKey.scopes };
  }

  async function organization(owner: Account): Promise<string> {
    const made = await api('/api/organizations', { token: owner.token, json: { name: 'Acme', slug: `acme-${process.pid}-${Date.now().toString(36)}-${++counter}` } });
    expect(made.status).toBe(201);
    return made.body.organization.id;
  }

  async function organizationKey(owner: Account, orgId: string, body: Record<string, unknown>): Promise<{ key: string; id: string }> {
    const made = await api(`/api/organizations/${orgId}/api-keys`, { token: owner.token, json: { name: 'service', ...body } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { key: made.body.key, id: made.body.apiKey.id };
  }

  const errorOf = (reply: { status: number; body: any }) => [reply.status, reply.body?.error?.code];

  // Attack: a body naming someone else (B.1: unknown fields never set server-owned ones).
  it("a key made with another user or organization in the body is still the caller's own user key", async () => {
    const attacker = await register(running, { password: PASSWORD });
    const victim = await register(running, { password: PASSWORD });
    const victimOrg = await organization(victim);
    const made = await api('/api/auth/api-keys', { token: attacker.token, json: { name: 'x', userId: victim.userId, organizationId: victimOrg, role: 'admin' } });
    expect(made.status).toBe(201);
    expect(made.body.apiKey).toMatchObject({ organizationId: null, role: null, createdBy: { id: attacker.userId } });
    expect((await api('/api/auth/me', { token: made.body.key })).body.user.id).toBe(attacker.userId);
    expect(errorOf(await api(`/api/organizations/${victimOrg}`, { token: made.body.key }))).toEqual([404, 'NOT_FOUND']);
    // A key for the victim's organization: not a member, so the organization does not exist for them.
    expect(errorOf(await api(`/api/organizations/${victimOrg}/api-keys`, { token: attacker.token, json: { name: 'x', role: 'member' } }))).toEqual([404, 'NOT_FOUND']);
  });

  // Attack: widening what a key may do after it was made.
  it("a key's scopes and role cannot be widened: renaming changes the name only, and no key mints keys", async () => {
    const owner = await register(running, { password: PASSWORD });
    const { key, id } = await userKey(owner, { scopes: ['profile:read'] });
    const renamed = await api(`/api/auth/api-keys/${id}`, { method: 'PATCH', token: owner.token, json: { name: 'renamed', scopes: ['profile:read', 'orgs:read', 'orgs:write'] } });
    expect(renamed.body.apiKey).toMatchObject({ name: 'renamed', scopes: ['profile:read'] });
    expect(errorOf(await api('/api/organizations', { token: key }))).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const orgId = await organization(owner);
    const member = await organizationKey(owner, orgId, { role: 'member', scopes: ['orgs:read', 'orgs:write'] });
    // No route changes an organization key; a key cannot make a key, of any kind.
    expect((await api(`/api/organizations/${orgId}/api-keys/${member.id}`, { method: 'PATCH', token: owner.token, json: { role: 'admin' } })).status).toBe(404);
    for (const [path, body] of [
      [`/api/organizations/${orgId}/api-keys`, { name: 'escalated', role: 'admin' }],
      ['/api/auth/api-keys', { name: 'escalated' }],
    ] as const) {
      expect(errorOf(await api(path, { token: member.key, json: body })), path).toEqual([403, 'SESSION_REQUIRED']);
      expect(errorOf(await api(path, { token: key, json: body })), path).toEqual([403, 'SESSION_REQUIRED']);
    }
    // A member key cannot raise a member or invite an admin.
    const invited = await api(`/api/organizations/${orgId}/invite`, { token: member.key, json: { email: `admin-${++counter}@example.com`, role: 'admin' } });
    expect(errorOf(invited)).toEqual([403, 'FORBIDDEN']);
    expect(errorOf(await api(`/api/organizations/${orgId}/api-keys`, { token: owner.token, json: { name: 'x', role: 'owner' } }))).toEqual([400, 'VALIDATION_ERROR']);
  });

  // Attack: an organization's key used on another organization.
  it("an organization key gets 404 on any other organization, as a stranger does, and lists only its own", async () => {
    const owner = await register(running, { password: PASSWORD });
    const mine = await organization(owner);
    const other = await organization(owner);
    const { key } = await organizationKey(owner, mine, { role: 'admin', scopes: ['orgs:read', 'orgs:write'] });
    for (const [method, path, json] of [
      ['GET', `/api/organizations/${other}`],
      ['GET', `/api/organizations/${other}/members`],
      ['PUT', `/api/organizations/${other}`, { name: 'Taken' }],
      ['POST', `/api/organizations/${other}/invite`, { email: `x-${++counter}@example.com` }],
    ] as const) {
      expect(errorOf(await api(path, { method, token: key, json })), `${method} ${path}`).toEqual([404, 'NOT_FOUND']);
    }
    expect((await api('/api/organizations', { token: key })).body.organizations.map((one: { id: string }) => one.id)).toEqual([mine]);
  });

  // Attack: a key used where only a person signed in may act (key + account route).
  it('every key gets 403 SESSION_REQUIRED on the account routes, and is no refresh token', async () => {
    const owner = await register(running, { password: PASSWORD });
    const { key } = await userKey(owner, { scopes: ['profile:read', 'orgs:read', 'orgs:write'] });
    const orgKey = (await organizationKey(owner, await organization(owner), { role: 'admin', scopes: ['orgs:read', 'orgs:write'] })).key;
    for (const token of [key, orgKey]) {
      for (const [method, path, json] of accountRoutes) {
        expect(errorOf(await api(path, { method, token, json })), `${method} ${path}`).toEqual([403, 'SESSION_REQUIRED']);
      }
      expect(errorOf(await api('/api/auth/refresh', { json: { refreshToken: token } }))).toEqual([401, 'INVALID_TOKEN']);
    }
    expect(errorOf(await api('/api/auth/me', { token: orgKey }))).toEqual([403, 'SESSION_REQUIRED']);
    expect((await api('/api/auth/me', { token: key })).status).toBe(200);
  });

  it('a mistyped, cut or unknown key is 401 UNAUTHENTICATED with WWW-Authenticate', async () => {
    const owner = await register(running, { password: PASSWORD });
    const { key } = await userKey(owner);
    for (const bad of [`${key.slice(0, 30)}${key[30] === 'x' ? 'y' : 'x'}${key.slice(31)}`, key.slice(0, -2), `gk_user_${'a'.repeat(49)}`, `gk_org_${key.slice(8)}`]) {
      const reply = await api('/api/auth/me', { token: bad });
      expect(errorOf(reply)).toEqual([401, 'UNAUTHENTICATED']);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  // Issue 32 item 8 with issue 33: a ban and a deletion end the user's keys; an organization key
  // its maker made outlives the maker's account. An admin acting as a user manages no keys.
  it("a ban ends the user's keys for good; a deletion ends them too, but not the organization keys the user made", async () => {
    const admin = await createAdmin({ fixture, running });
    const banned = await register(running, { password: PASSWORD });
    const { key: bannedKey } = await userKey(banned);
    expect((await api(`/api/admin/users/${banned.userId}/ban`, { token: admin.token, json: { reason: 'abuse' } })).status).toBe(200);
    expect(errorOf(await api('/api/auth/me', { token: bannedKey }))).toEqual([401, 'UNAUTHENTICATED']);
    expect((await api(`/api/admin/users/${banned.userId}/unban`, { method: 'POST', token: admin.token })).status).toBe(200);
    expect(errorOf(await api('/api/auth/me', { token: bannedKey }))).toEqual([401, 'UNAUTHENTICATED']);

    const leaving = await register(running, { password: PASSWORD });
    const orgId = await organization(leaving);
    const { key: ownKey } = await userKey(leaving);
    const service = await organizationKey(leaving, orgId, { role: 'member' });
    const exported = await api('/api/auth/account/export', { token: leaving.token });
    expect(exported.body.apiKeys).toEqual([expect.objectContaining({ name: 'script', start: ownKey.slice(0, 12) })]);
    expect(JSON.stringify(exported.body)).not.toContain(ownKey);
    expect(JSON.stringify(exported.body)).not.toContain(service.key);
    // The organization has only this member, so it goes with the account, and its key with it.
    const survivor = await register(running, { password: PASSWORD });
    const sharedOrg = await organization(survivor);
    const invited = await api(`/api/organizations/${sharedOrg}/invite`, { token: survivor.token, json: { email: leaving.email, role: 'admin' } });
    expect((await api(`/api/organizations/invite/${invited.body.inviteUrl.split('/invite/')[1]}/accept`, { method: 'POST', token: leaving.token })).status).toBe(200);
    const outliving = await organizationKey(leaving, sharedOrg, { role: 'member' });
    expect((await api('/api/auth/account', { method: 'DELETE', token: leaving.token, json: { confirm: leaving.email } })).status).toBe(204);
    expect(errorOf(await api('/api/auth/me', { token: ownKey }))).toEqual([401, 'UNAUTHENTICATED']);
    expect(errorOf(await api(`/api/organizations/${orgId}`, { token: service.key }))).toEqual([401, 'UNAUTHENTICATED']);
    const kept = await api(`/api/organizations/${sharedOrg}/api-keys`, { token: survivor.token });
    expect(kept.body.apiKeys).toEqual([expect.objectContaining({ id: outliving.id, createdBy: null })]);
    expect((await api(`/api/organizations/${sharedOrg}`, { token: outliving.key })).status).toBe(200);
  });

  it('an impersonation session cannot list, make or delete keys (403 IMPERSONATION_FORBIDDEN)', async () => {
    const admin = await createAdmin({ fixture, running });
    const target = await register(running, { password: PASSWORD });
    const { id } = await userKey(target);
    const orgId = await organization(target);
    const started = await api(`/api/admin/users/${target.userId}/impersonate`, { token: admin.token, json: { reason: 'support ticket 1' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const acting = started.body.token as string;
    for (const [method, path, json] of [
      ['GET', '/api/auth/api-keys'],
      ['POST', '/api/auth/api-keys', { name: 'planted' }],
      ['PATCH', `/api/auth/api-keys/${id}`, { name: 'renamed' }],
      ['DELETE', `/api/auth/api-keys/${id}`],
      ['GET', `/api/organizations/${orgId}/api-keys`],
      ['POST', `/api/organizations/${orgId}/api-keys`, { name: 'planted', role: 'admin' }],
    ] as const) {
      expect(errorOf(await api(path, { method, token: acting, json })), `${method} ${path}`).toEqual([403, 'IMPERSONATION_FORBIDDEN']);
    }
  });

  it('every /api/admin route refuses a key (403 SESSION_REQUIRED), the admin\'s own included', async () => {
    const admin = await createAdmin({ fixture, running });
    const { key } = await userKey(admin, { scopes: ['profile:read', 'orgs:read', 'orgs:write'] });
    for (const [method, path, json] of [
      ['GET', '/api/admin/users'],
      ['GET', `/api/admin/users/${admin.userId}`],
      ['POST', `/api/admin/users/${admin.userId}/ban`, { reason: 'x' }],
      ['PUT', `/api/admin/users/${admin.userId}/role`, { role: 'user' }],
      ['DELETE', `/api/admin/users/${admin.userId}/sessions`],
    ] as const) {
      expect(errorOf(await api(path, { method, token: key, json })), `${method} ${path}`).toEqual([403, 'SESSION_REQUIRED']);
    }
  });

  it('a key deleted through one instance is refused by another at its next request', async () => {
    const second = await startAppProcess(fixture().dir, running.env());
    try {
      const owner = await register(running, { password: PASSWORD });
      const { key, id } = await userKey(owner);
      const orgId = await organization(owner);
      const service = await organizationKey(owner, orgId, { role: 'member' });
      expect((await api('/api/auth/me', { token: key }, second.url)).status).toBe(200);
      expect((await api(`/api/organizations/${orgId}`, { token: service.key }, second.url)).status).toBe(200);
      expect((await api(`/api/auth/api-keys/${id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
      expect((await api(`/api/organizations/${orgId}/api-keys/${service.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
      expect(errorOf(await api('/api/auth/me', { token: key }, second.url))).toEqual([401, 'UNAUTHENTICATED']);
      expect(errorOf(await api(`/api/organizations/${orgId}`, { token: service.key }, second.url))).toEqual([401, 'UNAUTHENTICATED']);
    } finally {
      await second.stop();
    }
  });
}
