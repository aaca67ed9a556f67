import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { smtpEnv, startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.js';
import { JWT_SECRET } from './jwt-app.scenarios.js';
import { projectChecks } from './project-checks.js';

let fixture: PreparedFixture;
beforeAll(() => {
  fixture = prepareFixture('full');
});
const databaseUrl = () => `file:${path.join(fixture.dir, 'dev.db')}`;

describe('full fixture (every module of this release, SQLite): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'sqlite', databaseUrl });
});

describe('full fixture: the running server', () => {
  let app: AppProcess;
  let mail: MailCatcher;
  beforeAll(async () => {
    mail = await startMailCatcher();
    app = await startAppProcess(fixture.dir, { JWT_SECRET, DATABASE_URL: databaseUrl(), BCRYPT_COST: '4', RATE_LIMIT_MAX: '0', ...smtpEnv(mail) });
  });
  afterAll(async () => {
    await app?.stop();
    await mail?.close();
  });

  it('serves every route its OpenAPI document lists, and nothing documented is missing', async () => {
    const { body } = await call(app.url, '/api/openapi.json');
    const routes = Object.entries(body.paths as Record<string, object>).flatMap(([route, operations]) =>
      Object.keys(operations).map((method) => [method.toUpperCase(), route.replace(/\{[^}]+\}/g, 'x')] as const),
    );
    expect(routes.length).toBeGreaterThan(10);
    for (const [method, route] of routes) {
      const response = await call(app.url, route, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
      // 404 is a real answer for unknown ids (NOT_FOUND, INVITE_NOT_FOUND); an unmounted route says "No such route."
      expect(response.body?.error?.message, `${method} ${route}`).not.toBe('No such route.');
      expect(response.status, `${method} ${route}`).toBeLessThan(500);
    }
  });

  it('lists its sign-in methods', async () => {
    const { body } = await call(app.url, '/api/auth/providers');
    const expected = JSON.parse((await import('node:fs')).readFileSync(path.join(fixture.dir, 'gatekit.json'), 'utf8')).modules;
    if (expected.some((module: { id: string }) => module.id === 'jwt')) expect(body.methods).toContain('password');
    if (expected.some((module: { id: string }) => module.id === 'magic-link')) expect(body.methods).toContain('magic_link');
  });
});
