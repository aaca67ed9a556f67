import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../src/modules/admin/admin-roles.js';
import { call } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('GET /api/admin/audit-log with an API key', () => {
  it("refuses an admin's own key, whatever its scopes (403 SESSION_REQUIRED)", async () => {
    const admin = await createUserWithToken(app, uniqueEmail('admin'));
    await setRole(app.context, admin.user.id, 'admin');
    const made = await call(app, '/api/auth/api-keys', {
      method: 'POST',
      token: admin.token,
      json: { name: 'ops script', scopes: ['profile:read', 'orgs:read', 'orgs:write'] },
    });
    expect(made.status).toBe(201);
    const refused = await call(app, '/api/admin/audit-log', { token: made.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('SESSION_REQUIRED');
    expect(refused.body.events).toBeUndefined();
    expect((await call(app, '/api/admin/audit-log', { token: admin.token })).status).toBe(200);
  });
});
