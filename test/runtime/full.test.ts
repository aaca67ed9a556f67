import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/app-process.js';
import { copyOfDevDatabase } from '../helpers/fixtures.js';
import { useRunningApp } from '../helpers/running-app.js';
import { sqliteFixtureWithChecks } from './project-checks.js';

describe('full fixture (every module of this release, SQLite)', () => {
  const fixture = sqliteFixtureWithChecks('full');
  // A copy: other files copy the shared fixture's dev.db, and must not find this file's rows in it
  // (the route probe below leaves a passkey challenge that later expires).
  const running = useRunningApp({ fixture, databaseUrl: () => copyOfDevDatabase(fixture(), 'full') });

  it('serves every route its OpenAPI document lists, and nothing documented is missing', async () => {
    const { body } = await call(running.app.url, '/api/openapi.json');
    const routes = Object.entries(body.paths as Record<string, object>).flatMap(([route, operations]) =>
      Object.keys(operations).map((method) => [method.toUpperCase(), route.replace(/\{[^}]+\}/g, 'x')] as const),
    );
    expect(routes.length).toBeGreaterThan(10);
    for (const [method, route] of routes) {
      // A redirect (an OAuth callback sends the browser to APP_URL) is the route's answer: not followed.
      const response = await call(running.app.url, route, { method, redirect: 'manual', headers: { 'content-type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
      const body = response.body;
      // 404 is a real answer for unknown ids (NOT_FOUND, INVITE_NOT_FOUND); an unmounted route says "No such route."
      expect(body?.error?.message, `${method} ${route}`).not.toBe('No such route.');
      expect(response.status, `${method} ${route}`).toBeLessThan(500);
    }
  });

  it('has every module of this release and lists its sign-in methods', async () => {
    const modules = JSON.parse(readFileSync(path.join(fixture().dir, 'gatekit.json'), 'utf8')).modules.map((module: { id: string }) => module.id);
    const providers = ['apple', 'discord', 'facebook', 'github', 'gitlab', 'google', 'linkedin', 'microsoft', 'oidc', 'slack', 'twitch', 'twitter'];
    const hosted = ['clerk', 'authjs', 'auth0', 'supabase', 'totp'];
    expect(modules).toEqual(['base', 'jwt', 'magic-link', 'passkey', 'identities', 'oauth', ...providers, 'hosted', 'hosted-token', ...hosted, 'admin', 'api-keys', 'audit', 'orgs', 'pages', 'admin-audit', 'org-api-keys', 'org-audit']);
    // No provider variables are set: every provider is listed, none configured, and the app runs.
    const { body } = await call(running.app.url, '/api/auth/providers');
    expect(body.methods).toEqual(['password', 'magic_link', 'passkey']);
    expect(body.hosted).toEqual(hosted);
    expect(body.oauth.map((provider: { id: string; configured: boolean }) => [provider.id, provider.configured])).toEqual(providers.map((id) => [id, false]));
    for (const provider of providers) {
      const start = await call(running.app.url, `/api/auth/${provider}`);
      expect(start.status, provider).toBe(404);
      expect(start.body.error.code, provider).toBe('PROVIDER_NOT_CONFIGURED');
    }
  });
});
