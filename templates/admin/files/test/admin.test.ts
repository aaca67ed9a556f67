import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../src/modules/admin/admin-roles.js';
import { createUserWithToken, olderToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function call(path: string, token: string | undefined, method = 'GET', json?: unknown) {
  const response = await app.request(path, { method, token, json });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A signed-in admin (the role given as `npm run admin -- grant` gives it). */
async function createAdmin() {
  const admin = await createUserWithToken(app, uniqueEmail('admin'));
  await setRole(app.context, admin.user.id, 'admin');
  return admin;
}

/** Every route of the operators' API, against `target`. */
function routes(target: string): [method: string, path: string, body?: unknown][] {
  return [
    ['GET', '/api/admin/users'],
    ['GET', `/api/admin/users/${target}`],
    ['POST', `/api/admin/users/${target}/ban`, { reason: 'spam' }],
    ['POST', `/api/admin/users/${target}/unban`],
    ['DELETE', `/api/admin/users/${target}/sessions`],
    ['PUT', `/api/admin/users/${target}/role`, { role: 'admin' }],
    ['POST', `/api/admin/users/${target}/impersonate`, { reason: 'support' }],
    ['DELETE', `/api/admin/users/${target}`, {}],
  ];
}

describe('who may use /api/admin', () => {
  it('refuses a caller without a token (401) and a user who is not an admin (403 FORBIDDEN), and changes nothing', async () => {
    const user = await createUserWithToken(app);
    const target = await createUserWithToken(app);
    for (const [method, path, body] of routes(target.user.id)) {
      expect((await call(path, undefined, method, body)).status, `${method} ${path}`).toBe(401);
      const refused = await call(path, user.token, method, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    }
    expect(await app.context.prisma.adminRole.count({ where: { userId: { in: [user.user.id, target.user.id] } } })).toBe(0);
    expect(await app.context.prisma.userBan.count({ where: { userId: target.user.id } })).toBe(0);
    expect((await call('/api/auth/me', target.token)).status).toBe(200);
  });

  it('takes a role change at the next request: an admin who loses the role is refused at once', async () => {
    await createAdmin();
    const admin = await createAdmin();
    expect((await call('/api/admin/users', admin.token)).status).toBe(200);
    await setRole(app.context, admin.user.id, 'user');
    expect((await call('/api/admin/users', admin.token)).status).toBe(403);
  });

  it('asks the weightiest changes for a recent sign-in: role, impersonation, deletion', async () => {
    const admin = await createAdmin();
    const old = await olderToken(app, admin.user, app.context.config.REAUTH_MAX_AGE_MINUTES + 1);
    const target = await createUserWithToken(app);
    const weighty = new Set(['/role', '/impersonate', '']);
    for (const [method, path, body] of routes(target.user.id).filter(([verb, route]) => verb !== 'DELETE' || !route.endsWith('/sessions'))) {
      const reply = await call(path, old, method, body);
      const suffix = path.slice(`/api/admin/users/${target.user.id}`.length);
      if (path.startsWith(`/api/admin/users/${target.user.id}`) && weighty.has(suffix) && method !== 'GET') expect(reply.body.error?.code, `${method} ${path}`).toBe('REAUTH_REQUIRED');
      else expect(reply.status, `${method} ${path}`).toBeLessThan(300);
    }
  });
});

describe('GET /api/admin/users', () => {
  it('finds users newest first by an email prefix or a part of the name, whatever the case, a keyset page at a time', async () => {
    const { token } = await createAdmin();
    const tag = `find${Date.now().toString(36)}`;
    const created = [];
    for (let i = 0; i < 5; i++) {
      const user = await app.context.prisma.user.create({ data: { email: `${tag}-${i}@example.com`, name: `Ada ${i}`, createdAt: new Date(Date.now() - (10 - i) * 1000) } });
      created.push(user);
    }
    const named = await app.context.prisma.user.create({ data: { email: uniqueEmail('other'), name: `Grace ${tag.toUpperCase()} Hopper` } });

    const first = await call(`/api/admin/users?query=${tag.toUpperCase()}&limit=2`, token);
    expect(first.status).toBe(200);
    expect(first.body.users.map((user: { id: string }) => user.id)).toEqual([named.id, created[4]!.id]);
    expect(first.body.users[0]).toEqual({
      id: named.id,
      email: named.email,
      name: named.name,
      image: null,
      emailVerified: false,
      twoFactorEnabled: false,
      createdAt: named.createdAt.toISOString(),
      role: 'user',
      banned: false,
      banReason: null,
      banExpiresAt: null,
      lastSignInAt: null,
    });
    const second = await call(`/api/admin/users?query=${tag}&limit=2&cursor=${first.body.nextCursor}`, token);
    expect(second.body.users.map((user: { id: string }) => user.id)).toEqual([created[3]!.id, created[2]!.id]);
    const third = await call(`/api/admin/users?query=${tag}&limit=2&cursor=${second.body.nextCursor}`, token);
    expect(third.body.users.map((user: { id: string }) => user.id)).toEqual([created[1]!.id, created[0]!.id]);
    expect(third.body.nextCursor).toBeNull();
    // The email matches from its start only.
    expect((await call(`/api/admin/users?query=example.com`, token)).body.users).toEqual([]);
  });

  it('filters by role and by ban, and refuses bad parameters with 400', async () => {
    const admin = await createAdmin();
    const banned = await createUserWithToken(app, uniqueEmail('filter'));
    await call(`/api/admin/users/${banned.user.id}/ban`, admin.token, 'POST', { reason: 'spam' });
    const admins = await call('/api/admin/users?role=admin&limit=200', admin.token);
    expect(admins.body.users.every((user: { role: string }) => user.role === 'admin')).toBe(true);
    expect(admins.body.users.map((user: { id: string }) => user.id)).toContain(admin.user.id);
    const bannedOnes = await call('/api/admin/users?banned=true&limit=200', admin.token);
    expect(bannedOnes.body.users.map((user: { id: string }) => user.id)).toContain(banned.user.id);
    expect(bannedOnes.body.users.every((user: { banned: boolean }) => user.banned)).toBe(true);
    const others = await call('/api/admin/users?banned=false&limit=200', admin.token);
    expect(others.body.users.map((user: { id: string }) => user.id)).not.toContain(banned.user.id);
    for (const query of ['role=owner', 'banned=yes', 'limit=0', 'limit=201', 'cursor=nonsense']) {
      const reply = await call(`/api/admin/users?${query}`, admin.token);
      expect(reply.status, query).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('treats % and _ in the query as themselves', async () => {
    const { token } = await createAdmin();
    const plain = await app.context.prisma.user.create({ data: { email: uniqueEmail('axb'), name: 'axb' } });
    const found = await call('/api/admin/users?query=a_b&limit=200', token);
    expect(found.body.users.map((user: { id: string }) => user.id)).not.toContain(plain.id);
    expect((await call('/api/admin/users?query=%25&limit=200', token)).body.users.map((user: { id: string }) => user.id)).not.toContain(plain.id);
  });
});

describe('GET /api/admin/users/:id', () => {
  it('shows the user, their live sessions, sign-in methods and organizations; an unknown id is 404', async () => {
    const { token } = await createAdmin();
    const target = await createUserWithToken(app);
    const detail = await call(`/api/admin/users/${target.user.id}`, token);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      user: expect.objectContaining({ id: target.user.id, role: 'user', banned: false, lastSignInAt: expect.any(String) }),
      sessions: [expect.objectContaining({ method: 'password', userAgent: 'vitest' })],
      methods: expect.any(Object),
      organizations: expect.any(Array),
    });
    expect(JSON.stringify(detail.body)).not.toContain(target.refreshToken);
    expect((await call('/api/admin/users/nobody', token)).status).toBe(404);
  });
});

describe('bans', () => {
  it('ends every session at once; the ban shows with its reason and end; unban lifts it and brings no session back', async () => {
    const admin = await createAdmin();
    const target = await createUserWithToken(app);
    const banned = await call(`/api/admin/users/${target.user.id}/ban`, admin.token, 'POST', { reason: 'spam', expiresInHours: 24 });
    expect(banned.status).toBe(200);
    expect(banned.body.user).toMatchObject({ banned: true, banReason: 'spam', banExpiresAt: expect.any(String) });
    expect(Date.parse(banned.body.user.banExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await call('/api/auth/me', target.token)).status).toBe(401);
    expect(await app.context.prisma.session.count({ where: { userId: target.user.id } })).toBe(0);

    const lifted = await call(`/api/admin/users/${target.user.id}/unban`, admin.token, 'POST');
    expect(lifted.body.user).toMatchObject({ banned: false, banReason: null, banExpiresAt: null });
    expect((await call('/api/auth/me', target.token)).status).toBe(401);
  });

  it('never bans an admin or oneself (403), nor an unknown user (404), and needs a reason (400)', async () => {
    const admin = await createAdmin();
    const other = await createAdmin();
    const user = await createUserWithToken(app);
    expect((await call(`/api/admin/users/${other.user.id}/ban`, admin.token, 'POST', { reason: 'x' })).status).toBe(403);
    expect((await call(`/api/admin/users/${admin.user.id}/ban`, admin.token, 'POST', { reason: 'x' })).status).toBe(403);
    expect((await call('/api/admin/users/nobody/ban', admin.token, 'POST', { reason: 'x' })).status).toBe(404);
    for (const body of [{}, { reason: ' ' }, { reason: 'x', expiresInHours: 0 }, { reason: 'x', expiresInHours: 1.5 }]) {
      expect((await call(`/api/admin/users/${user.user.id}/ban`, admin.token, 'POST', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call('/api/auth/me', other.token)).status).toBe(200);
    expect((await call('/api/auth/me', user.token)).status).toBe(200);
  });
});

describe('DELETE /api/admin/users/:id/sessions', () => {
  it("ends every session of the user, and no one else's", async () => {
    const admin = await createAdmin();
    const target = await createUserWithToken(app);
    const bystander = await createUserWithToken(app);
    expect((await call(`/api/admin/users/${target.user.id}/sessions`, admin.token, 'DELETE')).status).toBe(204);
    expect((await call('/api/auth/me', target.token)).status).toBe(401);
    expect((await call('/api/auth/me', bystander.token)).status).toBe(200);
    expect((await call('/api/auth/me', admin.token)).status).toBe(200);
  });
});

describe('PUT /api/admin/users/:id/role', () => {
  it('gives and takes the role; the last admin cannot demote itself (409 LAST_ADMIN)', async () => {
    const { prisma } = app.context;
    // This test needs to be the only admin: the others of this file lose the role first.
    await prisma.adminRole.deleteMany();
    const admin = await createAdmin();
    const user = await createUserWithToken(app);
    const last = await call(`/api/admin/users/${admin.user.id}/role`, admin.token, 'PUT', { role: 'user' });
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe('LAST_ADMIN');

    const promoted = await call(`/api/admin/users/${user.user.id}/role`, admin.token, 'PUT', { role: 'admin' });
    expect(promoted.body.user.role).toBe('admin');
    expect((await call('/api/admin/users', user.token)).status).toBe(200);
    const demoted = await call(`/api/admin/users/${admin.user.id}/role`, admin.token, 'PUT', { role: 'user' });
    expect(demoted.body.user.role).toBe('user');
    expect((await call('/api/admin/users', admin.token)).status).toBe(403);
    expect((await call(`/api/admin/users/${user.user.id}/role`, user.token, 'PUT', { role: 'owner' })).status).toBe(400);
  });
});

describe('DELETE /api/admin/users/:id', () => {
  it('deletes the user as an account deletion; never an admin or oneself', async () => {
    const admin = await createAdmin();
    const other = await createAdmin();
    const target = await createUserWithToken(app);
    expect((await call(`/api/admin/users/${other.user.id}`, admin.token, 'DELETE', {})).status).toBe(403);
    expect((await call(`/api/admin/users/${admin.user.id}`, admin.token, 'DELETE', {})).status).toBe(403);
    expect((await call(`/api/admin/users/${target.user.id}`, admin.token, 'DELETE', {})).status).toBe(204);
    expect(await app.context.prisma.user.count({ where: { id: target.user.id } })).toBe(0);
    expect((await call('/api/auth/me', target.token)).status).toBe(401);
    expect((await call(`/api/admin/users/${target.user.id}`, admin.token, 'DELETE', {})).status).toBe(404);
  });
});

describe('the account of an admin', () => {
  it('the last admin cannot delete their account (409 LAST_ADMIN); another can', async () => {
    const { prisma } = app.context;
    await prisma.adminRole.deleteMany();
    const admin = await createAdmin();
    const remove = (account: { token: string; user: { email: string } }) =>
      call('/api/auth/account', account.token, 'DELETE', { confirm: account.user.email });
    const refused = await remove(admin);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('LAST_ADMIN');
    const second = await createAdmin();
    expect((await remove(admin)).status).toBe(204);
    expect(await prisma.adminRole.findMany({ select: { userId: true } })).toEqual([{ userId: second.user.id }]);
  });

  it('the export says the role', async () => {
    const admin = await createAdmin();
    const response = await app.request('/api/auth/account/export', { token: admin.token });
    expect((await response.json()).role).toBe('admin');
  });
});

describe('npm run admin', () => {
  const run = promisify(execFile);
  const admin = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
      env: { ...process.env, DATABASE_URL: app.context.config.DATABASE_URL, JWT_SECRET: app.context.config.JWT_SECRET },
    });

  it('grants and revokes the role by address, and says what it did', async () => {
    const { user, token } = await createUserWithToken(app, uniqueEmail('operator'));
    await app.context.prisma.adminRole.create({ data: { userId: (await createUserWithToken(app)).user.id } });
    const granted = await admin('grant', user.email.toUpperCase());
    expect(granted.stdout).toContain(`${user.email} is an admin.`);
    expect((await call('/api/admin/users', token)).status).toBe(200);
    const revoked = await admin('revoke', user.email);
    expect(revoked.stdout).toContain('is no longer an admin');
    expect((await call('/api/admin/users', token)).status).toBe(403);
    await expect(admin('grant', 'nobody@example.com')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No user has the address') });
    await expect(admin('promote', user.email)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage') });
  }, 60_000);
});
