import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../helpers/app-process.js';
import { startFakeProviders } from '../helpers/fake-oauth/index.js';
import { exchange, signIn as oauthSignIn } from '../helpers/oauth-browser.js';
import { TEST_APP_URL } from '../helpers/running-app.js';
import { WORK_DIR } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { openSqlite } from '../helpers/sqlite-file.js';
import { diffSchemas, findDrift, openSchemaEngine } from '../helpers/schema-engine.js';
import {
  add,
  APP_EDIT,
  AUDIT_LOG_PACK,
  edit,
  inApp,
  KEYCLOAK_PACK,
  migrationFolders,
  migrationHashes,
  registerUser,
  signIn,
  treeHash,
  withApp,
} from './add.scenarios.js';
import { expectEveryTestPassed } from '../helpers/vitest-summary.js';

// Each add installs the new packages and the app builds, type-checks and runs its own suite.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 900_000 });

const dir = path.join(WORK_DIR, 'add-sqlite');
const file = (name: string) => path.join(dir, name);
const read = (name: string) => readFileSync(file(name), 'utf8');
const databaseUrl = () => `file:${file('dev.db')}`;

let early: { email: string };
let orgId: string;

describe('add on a SQLite app made with --auth jwt --no-orgs, edited by its user', () => {
  beforeAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(WORK_DIR, { recursive: true });
    const generated = runCli([dir, '--auth', 'jwt', '--no-orgs', '--yes', '--no-git', '--pm', 'npm']);
    expect(generated.status, generated.stderr).toBe(0);
    inApp(dir, ['run', 'build']);
    early = await withApp(dir, {}, registerUser);
    edit(dir, 'src/app.ts', APP_EDIT.from, APP_EDIT.to);
    edit(dir, 'README.md', '\nAn Express 5', '\nOur team\'s sign-in service.\n\nAn Express 5');
    edit(dir, 'src/config.ts', 'export class ConfigError extends Error {}', '/** Thrown at start-up; the message lists every bad variable. */\nexport class ConfigError extends Error {}');
  });

  it('--dry-run prints the plan (added, rewritten, merged) and writes nothing', () => {
    const before = treeHash(dir);
    const result = add(dir, ['orgs', 'github', '--dry-run']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Added:\n[\s\S]*src\/modules\/organizations\/organizations\.routes\.ts/);
    expect(result.stdout).toMatch(/Rewritten \(unchanged since generated\):\n[\s\S]*src\/modules\/auth\/account-hooks\.ts/);
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/app\.ts/);
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  README\.md/);
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/config\.ts/);
    expect(result.stdout).toContain('Nothing was written.');
    expect(treeHash(dir)).toEqual(before);
  });

  it('adds orgs and github: edits kept, one new migration, earlier users still sign in, new routes served', async () => {
    const migrationsBefore = migrationHashes(dir);
    const result = add(dir, ['orgs', 'github']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('Installing dependencies');
    expect(result.stdout).toContain('Applying database migrations');

    expect(read('src/app.ts')).toContain("app.get('/api/hello'");
    expect(read('src/app.ts')).toContain('createOrganizationRoutes(context)');
    expect(read('src/app.ts')).toContain('createOAuthRoutes(context)');
    expect(read('README.md')).toContain("Our team's sign-in service.");
    expect(read('README.md')).toMatch(/GitHub/);
    expect(read('src/config.ts')).toContain('Thrown at start-up');
    expect(read('src/config.ts')).toContain('organizationsConfig');
    const env = read('.env');
    expect(env).toMatch(/^GITHUB_CLIENT_ID=/m);
    expect(env).toMatch(/^INVITE_EXPIRY_DAYS=7$/m);
    expect(read('.env.example')).toMatch(/^GITHUB_CLIENT_SECRET=/m);
    const metadata = JSON.parse(read('gatekit.json'));
    expect(metadata.modules.map((module: { id: string }) => module.id)).toEqual(expect.arrayContaining(['orgs', 'github', 'oauth', 'identities']));
    expect(metadata.command).toContain('--oauth github');
    expect(metadata.command).toContain('--orgs');

    const after = migrationHashes(dir);
    for (const [name, hash] of Object.entries(migrationsBefore)) expect(after[name], name).toBe(hash);
    const added = Object.keys(after).filter((name) => !(name in migrationsBefore));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^\d{14}_add_identities_orgs$/);
    expect(await findDrift({ db: 'sqlite', url: databaseUrl(), schema: read('prisma/schema.prisma') })).toBe('');

    inApp(dir, ['run', 'build']);
    await withApp(dir, {}, async (app) => {
      const token = await signIn(app, early.email);
      expect((await call(app.url, '/api/hello')).body).toEqual({ hello: 'world' });
      const created = await call(app.url, '/api/organizations', { json: { name: 'Acme', slug: `acme-${Date.now()}` }, token });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      orgId = created.body.organization.id;
      const providers = await call(app.url, '/api/auth/providers');
      expect(providers.body.oauth.map((provider: { id: string }) => provider.id)).toEqual(['github']);
    });
  });

  it('a conflicting edit: the user\'s file is untouched, the proposal is beside it, the report names the line', async () => {
    const mine = edit(dir, 'src/modules/auth/account-hooks.ts', 'export const loginChecks: LoginCheck[] = [];', 'export const loginChecks: LoginCheck[] = [/* none yet */];');
    const schemaBefore = read('prisma/schema.prisma');
    const folders = migrationFolders(dir);
    const result = add(dir, ['totp']);
    // A conflict left for the user: every step ran, and exit code 3 tells scripts.
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(3);
    expect(read('src/modules/auth/account-hooks.ts')).toBe(mine);
    const proposal = read('src/modules/auth/account-hooks.ts.gatekit-new');
    expect(proposal).toContain('<<<<<<< your version');
    expect(proposal).toContain('>>>>>>> create-gatekit add');
    expect(result.stdout).toMatch(/Conflicting with your edits \(your file is untouched\):\n  src\/modules\/auth\/account-hooks\.ts -> src\/modules\/auth\/account-hooks\.ts\.gatekit-new/);
    expect(result.stdout).toMatch(/src\/modules\/auth\/account-hooks\.ts: resolve the conflict markers at line \d+ of src\/modules\/auth\/account-hooks\.ts\.gatekit-new, then move it over src\/modules\/auth\/account-hooks\.ts/);

    // A single module's migration is exactly the schema engine's diff from the schema before to the schema after.
    const [folder] = migrationFolders(dir).filter((name) => !folders.includes(name));
    const handle = await openSchemaEngine('sqlite', `file:${file('engine-scratch.db')}`, schemaBefore);
    try {
      expect(read(`prisma/migrations/${folder}/migration.sql`).trim()).toBe((await diffSchemas(handle, schemaBefore, read('prisma/schema.prisma'))).trim());
    } finally {
      await handle.close();
      rmSync(file('engine-scratch.db'), { force: true });
    }

    // The user resolves it by taking the new side, as the report says.
    const resolved = proposal.replace(/<<<<<<< your version\n[\s\S]*?=======\n([\s\S]*?)>>>>>>> create-gatekit add\n/g, '$1');
    writeFileSync(file('src/modules/auth/account-hooks.ts'), resolved);
    rmSync(file('src/modules/auth/account-hooks.ts.gatekit-new'));
    expect(resolved).toMatch(/loginChecks: LoginCheck\[\] = \[\w+/);
  });

  it('adds a pack feature module and a pack provider: recorded in gatekit.json, type-checks, passes its own tests, old data survives', async () => {
    const result = add(dir, ['audit-log', 'keycloak', '--pack', AUDIT_LOG_PACK, '--pack', KEYCLOAK_PACK]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    // README and src/app.ts were edited (and merged) before: they merge again, nothing conflicts.
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  README\.md\n/);
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/app\.ts\n/);
    expect(result.stdout).not.toContain('Conflicting');
    expect(read('README.md')).toContain("Our team's sign-in service.");
    const metadata = JSON.parse(read('gatekit.json'));
    expect(metadata.packs.map((pack: { name: string; version: string }) => `${pack.name}@${pack.version}`)).toEqual(['gatekit-pack-audit-log@1.0.0', 'gatekit-pack-keycloak@1.0.0']);
    expect(metadata.command).toContain(`--pack ${AUDIT_LOG_PACK}`);
    expect(existsSync(file('test/audit-log.test.ts'))).toBe(true);

    expect(inApp(dir, ['run', 'typecheck'])).toContain('tsc --noEmit');
    const tests = inApp(dir, ['test']);
    expectEveryTestPassed(tests);
    expect(tests).not.toMatch(/skipped|failed/);
    expect(tests).toContain('audit-log.test.ts');
    expect(await findDrift({ db: 'sqlite', url: databaseUrl(), schema: read('prisma/schema.prisma') })).toBe('');

    inApp(dir, ['run', 'build']);
    // The pack's Keycloak provider against a fake OpenID Connect issuer speaking the real wire format.
    const fake = await startFakeProviders();
    const keycloakEnv = Object.fromEntries(Object.entries(fake.env('oidc')).map(([name, value]) => [name.replace(/^OIDC_/, 'KEYCLOAK_'), value]));
    try {
      await withApp(dir, { ...keycloakEnv, APP_URL: TEST_APP_URL }, async (app) => {
        const landing = await oauthSignIn({ appUrl: app.url, frontEndUrl: TEST_APP_URL, provider: 'keycloak' });
        expect(landing.error).toBeUndefined();
        const exchanged = await exchange(app.url, landing.code!, landing.jar);
        expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
        expect(fake.authorizations('oidc').map((authorization) => authorization.redirectUri)).toEqual([`${app.url}/api/auth/keycloak/callback`]);
      });
    } finally {
      await fake.close();
    }
    await withApp(dir, {}, async (app) => {
      const token = await signIn(app, early.email);
      const events = await call(app.url, '/api/audit-log', { token });
      expect(events.status).toBe(200);
      expect(events.body.events.map((event: { action: string }) => event.action)).toEqual(['sign-in']);
      const orgs = await call(app.url, '/api/organizations', { token });
      expect(orgs.body.organizations.map((org: { id: string }) => org.id)).toEqual([orgId]);
      expect((await call(app.url, '/api/auth/providers')).body.oauth.map((provider: { id: string }) => provider.id)).toEqual(['github', 'keycloak']);
      expect((await call(app.url, '/api/hello')).body).toEqual({ hello: 'world' });
    });
  });

  it('a later add finds the recorded packs again without --pack', () => {
    const result = add(dir, ['magic-link', '--dry-run']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('src/modules/auth/magic-link');
  });

  it('adds passkey: edits kept, one new migration, earlier users still sign in, and a passkey registers and signs in', async () => {
    const migrationsBefore = migrationHashes(dir);
    const result = add(dir, ['passkey']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(read('src/app.ts')).toContain("app.get('/api/hello'");
    expect(read('src/app.ts')).toContain('createPasskeyRoutes(context)');
    expect(read('README.md')).toContain("Our team's sign-in service.");
    expect(read('README.md')).toContain('## Passkeys');
    expect(read('src/config.ts')).toContain('Thrown at start-up');
    expect(read('.env.example')).toMatch(/^WEBAUTHN_RP_ID=/m);
    expect(JSON.parse(read('gatekit.json')).command).toContain('--auth jwt,passkey');
    const after = migrationHashes(dir);
    for (const [name, hash] of Object.entries(migrationsBefore)) expect(after[name], name).toBe(hash);
    const added = Object.keys(after).filter((name) => !(name in migrationsBefore));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^\d{14}_add_passkey$/);
    expect(await findDrift({ db: 'sqlite', url: databaseUrl(), schema: read('prisma/schema.prisma') })).toBe('');

    inApp(dir, ['run', 'build']);
    // Passkeys need a verified address; the early user's is marked verified here, as its mailed link would.
    const db = openSqlite(databaseUrl());
    db.prepare('UPDATE User SET emailVerified = 1 WHERE email = ?').run(early.email);
    db.close();
    await withApp(dir, { APP_URL: TEST_APP_URL }, async (app) => {
      const token = await signIn(app, early.email);
      const authenticator = new SoftAuthenticator(TEST_APP_URL);
      const options = await call(app.url, '/api/auth/passkey/register/options', { method: 'POST', token });
      expect(options.status, JSON.stringify(options.body)).toBe(200);
      const registered = await call(app.url, '/api/auth/passkey/register/verify', { token, json: { response: authenticator.create(options.body).response } });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      const signInOptions = await call(app.url, '/api/auth/passkey/login/options', { method: 'POST' });
      const signedIn = await call(app.url, '/api/auth/passkey/login/verify', { json: { response: authenticator.get(signInOptions.body) } });
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      expect(signedIn.body.user.email).toBe(early.email);
      expect((await call(app.url, '/api/auth/providers')).body.methods).toEqual(['password', 'passkey']);
      expect((await call(app.url, '/api/hello')).body).toEqual({ hello: 'world' });
    });
  });
});
