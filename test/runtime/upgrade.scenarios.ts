import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, childEnv, type AppProcess } from '../helpers/app-process.js';
import { uniqueEmail } from '../helpers/accounts.js';
import { WORK_DIR } from '../helpers/fixtures.js';
import { releaseCli } from '../helpers/release-build.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { TEST_APP_URL } from '../helpers/running-app.js';
import { findDrift } from '../helpers/schema-engine.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { treeHash } from '../helpers/tree-hash.js';
import { add, edit, inApp, migrationHashes, PASSWORD, withApp } from './add.scenarios.js';
import { expectEveryTestPassed } from '../helpers/vitest-summary.js';

/**
 * An app made by the real release 4.0 generator (built from the commit that shipped it), with
 * users, sessions, an organization and a passkey in its database and the edits an owner makes, is
 * upgraded to this release; then it installs, migrates, builds, passes its own tests, keeps its
 * data working and takes `add` again (CONTRACT A.7, issue 36). One install per database.
 */

export interface UpgradeSetup {
  db: 'sqlite' | 'postgresql';
  /** The app's DATABASE_URL (SQLite: its dev.db). */
  databaseUrl: (dir: string) => string;
  /** Marks a user's address verified, as its mailed link would (passkeys need a verified address). */
  verifyEmail: (dir: string, email: string) => Promise<void>;
  /** The user's lastSignInAt after the upgrade's data step. */
  lastSignInAt: (dir: string, email: string) => Promise<unknown>;
}

export function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=Owner', '-c', 'user.email=owner@example.com', ...args], { encoding: 'utf8' });
}

export function upgrade(dir: string, args: string[] = []): CliResult {
  return runCli(['upgrade', '--cwd', dir, ...args]);
}

/** Commits what the app has, upgrades it again, and expects nothing to change. */
export function expectIdleUpgrade(dir: string, message: string): void {
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', message]);
  const settled = treeHash(dir);
  const again = upgrade(dir);
  expect(again.status, again.stderr).toBe(0);
  expect(again.stdout).toContain('is at release 4.1 already');
  expect(treeHash(dir)).toEqual(settled);
  expect(git(dir, ['status', '--porcelain'])).toBe('');
}

/** Generates an app with the release's own generator, without installing. */
export async function generateWithRelease(release: string, dir: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  const bin = await releaseCli(release);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  const result = spawnSync(process.execPath, [bin, dir, '--yes', '--no-install', '--no-git', '--pm', 'npm', ...args], { env: childEnv({ CI: 'true', ...env }), encoding: 'utf8', input: '' });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'))).toMatchObject({ generator: { version: '3.7.0' }, templateVersion: release });
}

/** The README's "Add your own route": a router of the owner's own, imported after the last import and mounted before the not-found handler. */
export function followTheRecipe(dir: string): void {
  mkdirSync(path.join(dir, 'src/modules/notes'), { recursive: true });
  writeFileSync(
    path.join(dir, 'src/modules/notes/notes.routes.ts'),
    [
      "import { Router } from 'express';",
      "import type { AppContext } from '../../context.js';",
      "import { currentAuth, requireAuth } from '../auth/guard.js';",
      '',
      'export function createNotesRoutes(ctx: AppContext): Router {',
      '  const router = Router();',
      '',
      "  router.get('/api/notes/hello', requireAuth(ctx), (_req, res) => {",
      '    const { user } = currentAuth(res);',
      '    res.json({ message: `Hello, ${user.name ?? user.email}`, userId: user.id });',
      '  });',
      '',
      '  return router;',
      '}',
      '',
    ].join('\n'),
  );
  const app = readFileSync(path.join(dir, 'src/app.ts'), 'utf8').split('\n');
  const lastImport = app.length - 1 - [...app].reverse().findIndex((line) => line.startsWith('import '));
  app.splice(lastImport + 1, 0, "import { createNotesRoutes } from './modules/notes/notes.routes.js';");
  app.splice(app.findIndex((line) => line.includes('app.use(notFoundHandler)')), 0, '  app.use(createNotesRoutes(context));');
  writeFileSync(path.join(dir, 'src/app.ts'), app.join('\n'));
}

/** An edit of a route that release 4.1 changes too, away from its changed lines. */
export const ROUTE_EDIT = {
  file: 'src/modules/organizations/organizations.routes.ts',
  from: "    res.json(await invites.previewInvite(ctx, param(req, 'token')));",
  to: "    // Invite links are private: keep them out of search engines.\n    res.setHeader('X-Robots-Tag', 'noindex');\n    res.json(await invites.previewInvite(ctx, param(req, 'token')));",
};

/** An edit of a file release 4.1 leaves as it was. */
export const KEPT_EDIT = { file: 'src/modules/health/health.routes.ts', from: 'import', to: '// Our load balancer polls /healthz every 5 s.\nimport' };

interface Account {
  email: string;
  token: string;
  refreshToken: string;
}

async function register(app: AppProcess, name: string): Promise<Account> {
  const email = uniqueEmail(name);
  const reply = await call(app.url, '/api/auth/register', { json: { email, password: PASSWORD, name } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { email, token: reply.body.token, refreshToken: reply.body.refreshToken };
}

async function login(app: AppProcess, email: string): Promise<Account> {
  const reply = await call(app.url, '/api/auth/login', { json: { email, password: PASSWORD } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { email, token: reply.body.token, refreshToken: reply.body.refreshToken };
}

export function describeUpgrade(setup: UpgradeSetup): void {
  const dir = path.join(WORK_DIR, `upgrade-${setup.db}`);
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  const env = { APP_URL: TEST_APP_URL, DATABASE_URL: setup.databaseUrl(dir) };
  const authenticator = new SoftAuthenticator(TEST_APP_URL);
  let alice: Account;
  let bob: Account;
  let orgId: string;
  let inviteToken: string;
  let before: Record<string, string>;
  let migrationsBefore: Record<string, string>;
  let owned: Record<string, string>;

  describe(`upgrade of a ${setup.db} app made by release 4.0, with data and edits`, () => {
    beforeAll(async () => {
      await generateWithRelease('4.0', dir, ['--auth', 'jwt,passkey', '--orgs', '--pages', ...(setup.db === 'postgresql' ? ['--db', 'postgresql'] : [])], { DATABASE_URL: setup.databaseUrl(dir) });
      inApp(dir, ['install', '--no-audit', '--no-fund', '--prefer-offline']);
      inApp(dir, ['run', 'db:migrate']);
      inApp(dir, ['run', 'build']);

      // Data, made by the 4.0 app: users with live sessions, an organization with an invite, a passkey.
      await withApp(dir, { APP_URL: TEST_APP_URL }, async (app) => {
        alice = await register(app, 'alice');
        bob = await register(app, 'bob');
        const created = await call(app.url, '/api/organizations', { token: alice.token, json: { name: 'Acme', slug: `acme-${Date.now().toString(36)}` } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        orgId = created.body.organization.id;
        const invite = await call(app.url, `/api/organizations/${orgId}/invite`, { token: alice.token, json: { email: uniqueEmail('carol'), role: 'member' } });
        expect(invite.status, JSON.stringify(invite.body)).toBe(201);
        inviteToken = new URL(invite.body.inviteUrl).pathname.split('/').pop()!;
      });
      await setup.verifyEmail(dir, alice.email);
      await withApp(dir, { APP_URL: TEST_APP_URL }, async (app) => {
        const fresh = await login(app, alice.email);
        const options = await call(app.url, '/api/auth/passkey/register/options', { method: 'POST', token: fresh.token });
        expect(options.status, JSON.stringify(options.body)).toBe(200);
        const registered = await call(app.url, '/api/auth/passkey/register/verify', { token: fresh.token, json: { response: authenticator.create(options.body).response } });
        expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      });

      // The owner's edits, committed.
      followTheRecipe(dir);
      edit(dir, ROUTE_EDIT.file, ROUTE_EDIT.from, ROUTE_EDIT.to);
      edit(dir, KEPT_EDIT.file, KEPT_EDIT.from, KEPT_EDIT.to);
      git(dir, ['init', '-q', '-b', 'main']);
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-q', '-m', 'Our app, made by release 4.0']);
      owned = Object.fromEntries(['src/modules/notes/notes.routes.ts', KEPT_EDIT.file].map((file) => [file, read(file)]));
      migrationsBefore = migrationHashes(dir);
      before = treeHash(dir);
    });

    it('--dry-run lists the plan and writes nothing', () => {
      const result = upgrade(dir, ['--dry-run']);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/app\.ts\n/);
      expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/modules\/organizations\/organizations\.routes\.ts\n/);
      expect(result.stdout).not.toContain('Conflicting');
      expect(result.stdout).toContain('Nothing was written.');
      expect(treeHash(dir)).toEqual(before);
      expect(git(dir, ['status', '--porcelain'])).toBe('');
    });

    it('upgrades without a conflict: edits kept, the owner\'s files untouched, one new migration, earlier ones unchanged', () => {
      const result = upgrade(dir);
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).not.toContain('Conflicting');
      expect(result.stdout).toContain('Upgraded to release 4.1.');
      const app = read('src/app.ts');
      expect(app).toContain("import { createNotesRoutes } from './modules/notes/notes.routes.js';");
      expect(app).toContain('  app.use(createNotesRoutes(context));\n  app.use(notFoundHandler);');
      expect(app).toContain('createJwksRoutes(context)');
      expect(read(ROUTE_EDIT.file)).toContain("res.setHeader('X-Robots-Tag', 'noindex');");
      expect(read(ROUTE_EDIT.file)).toContain("apiKeyScope: 'orgs:write'");
      for (const [file, text] of Object.entries(owned)) expect(read(file), file).toBe(text);
      const after = migrationHashes(dir);
      for (const [name, hash] of Object.entries(migrationsBefore)) expect(after[name], name).toBe(hash);
      expect(Object.keys(after).filter((name) => !(name in migrationsBefore))).toEqual([expect.stringMatching(/^\d{14}_upgrade_4_0_to_4_1$/)]);
      expect(read('.env')).toMatch(/^KEY_ENCRYPTION_KEYS="k1:/m);
      expect(JSON.parse(read('gatekit.json'))).toMatchObject({ generator: { version: '4.1.0' }, templateVersion: '4.1' });
    });

    it("installs, migrates, builds and passes its own tests; the database matches the schema, with the release's data step", async () => {
      inApp(dir, ['install', '--no-audit', '--no-fund', '--prefer-offline']);
      expect(inApp(dir, ['run', 'db:migrate'])).toMatch(/Applied 1 migration\(s\): \d{14}_upgrade_4_0_to_4_1/);
      inApp(dir, ['run', 'build']);
      const tests = inApp(dir, ['test']);
      expectEveryTestPassed(tests);
      expect(tests).not.toMatch(/failed/);
      expect(await findDrift({ db: setup.db, url: setup.databaseUrl(dir), schema: read('prisma/schema.prisma') })).toBe('');
      expect(await setup.lastSignInAt(dir, alice.email)).not.toBeNull();
    });

    it('keeps what 4.0 made working: refresh tokens refresh, the passkey signs in, the organization and the edited routes answer; account deletion and export work', async () => {
      await withApp(dir, env, async (app) => {
        const refreshed = await call(app.url, '/api/auth/refresh', { json: { refreshToken: bob.refreshToken } });
        expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
        expect(refreshed.body.user.email).toBe(bob.email);
        const options = await call(app.url, '/api/auth/passkey/login/options', { method: 'POST' });
        expect(options.status, JSON.stringify(options.body)).toBe(200);
        const signedIn = await call(app.url, '/api/auth/passkey/login/verify', { json: { response: authenticator.get(options.body) } });
        expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
        expect(signedIn.body.user.email).toBe(alice.email);
        const token = signedIn.body.token;
        expect((await call(app.url, '/api/notes/hello', { token })).body).toMatchObject({ message: 'Hello, alice' });
        const organizations = await call(app.url, '/api/organizations', { token });
        expect(organizations.body.organizations.map((organization: { id: string }) => organization.id)).toEqual([orgId]);
        const preview = await call(app.url, `/api/organizations/invite/${inviteToken}`);
        expect(preview.status, JSON.stringify(preview.body)).toBe(200);
        expect(preview.headers.get('x-robots-tag')).toBe('noindex');

        const exported = await call(app.url, '/api/auth/account/export', { token });
        expect(exported.status, JSON.stringify(exported.body)).toBe(200);
        expect(exported.body.user.email).toBe(alice.email);
        const fresh = await login(app, bob.email);
        const deleted = await call(app.url, '/api/auth/account', { method: 'DELETE', token: fresh.token, json: { confirm: bob.email } });
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
        expect((await call(app.url, '/api/auth/me', { token: refreshed.body.token })).status).toBe(401);
      });
    });

    it('signs with EdDSA and publishes the JWKS with the KEY_ENCRYPTION_KEYS of the merged .env', async () => {
      await withApp(dir, { ...env, JWT_ALGORITHM: 'EdDSA' }, async (app) => {
        const jwks = await call(app.url, '/.well-known/jwks.json');
        expect(jwks.status, JSON.stringify(jwks.body)).toBe(200);
        expect(jwks.body.keys.length).toBeGreaterThan(0);
        expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
        const signedIn = await login(app, alice.email);
        const header = JSON.parse(Buffer.from(signedIn.token.split('.')[0]!, 'base64url').toString());
        expect(header.alg).toBe('EdDSA');
        // The signing key and the next one are published.
        expect(jwks.body.keys.map((key: { kid: string }) => key.kid)).toContain(header.kid);
        expect((await call(app.url, '/api/auth/me', { token: signedIn.token })).status).toBe(200);
      });
    });

    it('takes add api-keys afterwards', async () => {
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-q', '-m', 'Upgrade to release 4.1']);
      const added = add(dir, ['api-keys']);
      expect(added.status, `${added.stdout}\n${added.stderr}`).toBe(0);
      expect(added.stdout).not.toContain('Conflicting');
      inApp(dir, ['run', 'build']);
      await withApp(dir, env, async (app) => {
        const signedIn = await login(app, alice.email);
        const made = await call(app.url, '/api/auth/api-keys', { token: signedIn.token, json: { name: 'script' } });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        expect((await call(app.url, '/api/auth/me', { token: made.body.key })).body.user.email).toBe(alice.email);
        expect((await call(app.url, '/api/notes/hello', { token: signedIn.token })).status).toBe(200);
      });
    });

    it('upgrading again changes nothing', () => {
      expectIdleUpgrade(dir, 'add api-keys');
    });
  });
}
