import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeChoices, type PartialChoices } from '../../src/core/choices.js';
import { UsageError } from '../../src/core/errors.js';
import { generateProject } from '../../src/core/generate-project.js';
import { resolveEnvRegion } from '../../src/core/merge-env.js';
import { mergePackageJson } from '../../src/core/merge-package-json.js';
import { planAdd } from '../../src/core/plan-add.js';
import { planUpgrade, type UpgradePlan } from '../../src/core/plan-upgrade.js';
import { createRegistry, loadBuiltinModules, loadReleaseModules } from '../../src/core/registry.js';
import { releaseProfile } from '../../src/core/release-profile.js';
import { compareVersions, releaseOfApp } from '../../src/core/releases.js';
import { GENERATOR_VERSION } from '../../src/core/version.js';
import { writeTree } from '../../src/core/write-tree.js';

const registry = createRegistry(loadBuiltinModules());
const release40 = releaseProfile('4.0');
const registry40 = createRegistry(loadReleaseModules(release40), [], release40);
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-upgrade-'));
const clock = new Date('2026-01-01T00:00:00Z');

/**
 * An app as release 4.0 wrote it: rendered from the frozen release, which
 * test/unit/frozen-releases.test.ts proves identical to what 4.0's own generator wrote.
 */
function app40(choices: PartialChoices, name = `app-${Math.random().toString(36).slice(2, 8)}`): string {
  const dir = path.join(work, name);
  const project = generateProject({ projectName: name, choices: mergeChoices({ templateVersion: '4.0', ...choices }, { pm: 'npm', install: false, git: false }), registry: registry40, now: clock });
  writeTree(dir, project.tree);
  return dir;
}

const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');
function edit(dir: string, file: string, from: string, to: string): void {
  const text = read(dir, file);
  expect(text, `${file} has ${from}`).toContain(from);
  writeFileSync(path.join(dir, file), text.replace(from, to));
}

const upgrade = (dir: string) => planUpgrade({ appDir: dir, registry, now: new Date('2026-06-01T00:00:00Z'), env: {} });
const kinds = (plan: UpgradePlan) => Object.fromEntries(plan.changes.map((change) => [change.file, change.kind]));
const change = (plan: UpgradePlan, file: string) => plan.changes.find((one) => one.file === file)!;

async function refusal(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('the release of an app', () => {
  it('reads 4.0 from an app that records generator 3.7.0 with its choices (4.0 shipped so), 3.7 without them', () => {
    expect(releaseOfApp({ generator: { version: '3.7.0' }, choices: {} })).toBe('4.0');
    expect(releaseOfApp({ generator: { version: '3.7.0' } })).toBe('3.7');
    expect(releaseOfApp({ generator: { version: '4.1.0' }, choices: {} })).toBe('4.1');
    expect(releaseOfApp({ generator: { version: '4.2.0-beta.1' }, choices: {} })).toBe('4.2');
  });

  it('compares versions numerically, a pre-release before its release', () => {
    expect(compareVersions('4.1.10', '4.1.9')).toBeGreaterThan(0);
    expect(compareVersions('4.1.0-beta.1', '4.1.0')).toBeLessThan(0);
    expect(compareVersions('4.1.0', '4.1.0')).toBe(0);
  });
});

describe('planning an upgrade from release 4.0', () => {
  it('plans an untouched app: new, rewritten and removed files, one migration with the data step, the new variables', async () => {
    const dir = app40({ auth: ['jwt', 'passkey'] });
    const plan = await upgrade(dir);
    expect(plan).toMatchObject({ from: '4.0', to: '4.1', upToDate: false, gained: [] });
    const byFile = kinds(plan);
    expect(byFile['src/modules/auth/signing-keys/jwks.routes.ts']).toBe('added');
    expect(byFile['src/app.ts']).toBe('rewritten');
    expect(byFile['src/modules/auth/display-name.ts']).toBe('removed');
    expect(byFile['.env']).toBe('merged');
    expect(Object.values(byFile)).not.toContain('conflict');
    // Nothing of the app's own migrations is touched.
    expect(Object.keys(byFile).filter((file) => file.startsWith('prisma/migrations/'))).toEqual(['prisma/migrations/20260601000000_upgrade_4_0_to_4_1/migration.sql']);
    const sql = change(plan, 'prisma/migrations/20260601000000_upgrade_4_0_to_4_1/migration.sql').content;
    expect(sql).toContain('CREATE TABLE "SigningKey"');
    expect(sql).toContain('"securityVersion" INTEGER NOT NULL DEFAULT 0');
    // SQLite rebuilds User; the guard stops an older runner that would cascade the drop.
    expect(sql).toMatch(/PRAGMA foreign_keys=OFF;\n-- Gatekit: the tables below are rebuilt[\s\S]*pragma_foreign_keys[\s\S]*DROP TABLE "User";/);
    expect(sql).toMatch(/-- Data step of release 4\.1 \(module base\)\n[\s\S]*UPDATE "User" SET "lastSignInAt"/);
    expect(plan.migration).toMatchObject({ proposed: false, schemaChange: true, dataSteps: ['4.1 base'] });
    expect(plan.envAdded).toEqual(['JWT_ALGORITHM', 'JWT_AUDIENCE', 'KEY_ENCRYPTION_KEYS', 'SIGNING_KEY_ROTATION_DAYS']);
    expect(change(plan, '.env').content).toMatch(/^KEY_ENCRYPTION_KEYS="k1:[A-Za-z0-9+/]{43}="$/m);
    expect(change(plan, '.env').content).toContain(read(dir, '.env').trimEnd());
    const metadata = JSON.parse(change(plan, 'gatekit.json').content);
    expect(metadata).toMatchObject({ generator: { version: GENERATOR_VERSION }, templateVersion: '4.1', choices: { auth: ['jwt', 'passkey'] } });
    // package.json by meaning: jose moves from devDependencies to dependencies, keys:rotate arrives.
    const packageJson = JSON.parse(change(plan, 'package.json').content);
    expect(packageJson.dependencies.jose).toBeDefined();
    expect(packageJson.devDependencies.jose).toBeUndefined();
    expect(packageJson.scripts['keys:rotate']).toBe('tsx scripts/rotate-keys.ts');
  });

  it("merges the README's own-route recipe in src/app.ts and an edited route, leaves an edited file the release keeps alone, and never touches the owner's own files", async () => {
    const dir = app40({ auth: ['jwt'] });
    edit(dir, 'src/app.ts', "import { createPageRoutes } from './modules/pages/pages.routes.js';\n", "import { createPageRoutes } from './modules/pages/pages.routes.js';\nimport { createNotesRoutes } from './modules/notes/notes.routes.js';\n");
    edit(dir, 'src/app.ts', '  app.use(notFoundHandler);\n', '  app.use(createNotesRoutes(context));\n  app.use(notFoundHandler);\n');
    edit(dir, 'src/modules/organizations/organizations.routes.ts', "    res.json(await invites.previewInvite(ctx, param(req, 'token')));", "    res.setHeader('X-Robots-Tag', 'noindex');\n    res.json(await invites.previewInvite(ctx, param(req, 'token')));");
    edit(dir, 'src/modules/health/health.routes.ts', 'import', '// Our load balancer polls /healthz.\nimport');
    mkdirSync(path.join(dir, 'src/modules/notes'), { recursive: true });
    writeFileSync(path.join(dir, 'src/modules/notes/notes.routes.ts'), '// mine\n');
    const plan = await upgrade(dir);
    const byFile = kinds(plan);
    expect(byFile['src/app.ts']).toBe('merged');
    expect(byFile['src/modules/organizations/organizations.routes.ts']).toBe('merged');
    expect(byFile['src/modules/health/health.routes.ts']).toBeUndefined();
    expect(byFile['src/modules/notes/notes.routes.ts']).toBeUndefined();
    const app = change(plan, 'src/app.ts').content;
    expect(app).toContain("import { createNotesRoutes } from './modules/notes/notes.routes.js';");
    expect(app).toContain('  app.use(createNotesRoutes(context));\n  app.use(notFoundHandler);');
    expect(app).toContain('createJwksRoutes(context)');
    const routes = change(plan, 'src/modules/organizations/organizations.routes.ts').content;
    expect(routes).toContain("res.setHeader('X-Robots-Tag', 'noindex');");
    expect(routes).toContain("requireAuth(ctx, { apiKeyScope: 'orgs:write' })");
  });

  it('leaves a conflict for an overlapping edit and for an edited file the release dropped, and still plans everything else', async () => {
    const dir = app40({ auth: ['jwt'] });
    edit(dir, 'src/modules/organizations/organizations.routes.ts', "router.post('/api/organizations', auth,", "router.post('/api/organizations', auth, ctx.rateLimit('invite-create'),");
    edit(dir, 'src/modules/auth/display-name.ts', 'export', '// tuned for our users\nexport');
    const plan = await upgrade(dir);
    const routes = change(plan, 'src/modules/organizations/organizations.routes.ts');
    expect(routes).toMatchObject({ kind: 'conflict', proposalFile: 'src/modules/organizations/organizations.routes.ts.gatekit-new' });
    expect(routes.content).toContain('>>>>>>> create-gatekit upgrade');
    expect(routes.action).toMatch(/^resolve the conflict markers at line \d+/);
    expect(change(plan, 'src/modules/auth/display-name.ts').kind).toBe('conflict');
    expect(change(plan, 'src/modules/auth/display-name.ts').proposalFile).toBeUndefined();
    expect(change(plan, 'src/modules/auth/display-name.ts').action).toContain('no longer has src/modules/auth/display-name.ts');
    expect(kinds(plan)['src/app.ts']).toBe('rewritten');
    expect(plan.migration?.proposed).toBe(false);
  });

  it("computes the migration from the app's own schema, so the owner's models and columns are kept; a conflicting schema only proposes the release's change", async () => {
    const dir = app40({ auth: ['jwt'], toggles: { orgs: false } });
    edit(dir, 'prisma/schema.prisma', '  emailVerified ', '  plan          String   @default("free")\n  emailVerified ');
    writeFileSync(path.join(dir, 'prisma/schema.prisma'), `${read(dir, 'prisma/schema.prisma')}\nmodel Note {\n  id   String @id\n  text String\n}\n`);
    const plan = await upgrade(dir);
    expect(kinds(plan)['prisma/schema.prisma']).toBe('merged');
    const sql = plan.changes.find((one) => one.file.endsWith('upgrade_4_0_to_4_1/migration.sql'))!.content;
    expect(sql).not.toContain('Note');
    // The rebuilt User keeps the owner's column and copies its values.
    expect(sql).toMatch(/CREATE TABLE "new_User" \([\s\S]*"plan" TEXT NOT NULL DEFAULT 'free'/);
    expect(sql).toMatch(/INSERT INTO "new_User" \([^)]*"plan"/);

    // An edit where the release changes the schema: the schema conflicts, the migration is a proposal.
    const conflicting = app40({ auth: ['jwt'] });
    edit(conflicting, 'prisma/schema.prisma', '  acceptedAt     DateTime?\n', '  acceptedAt     DateTime? // when the invitee joined\n');
    const proposed = await upgrade(conflicting);
    expect(kinds(proposed)['prisma/schema.prisma']).toBe('conflict');
    const migration = proposed.changes.find((one) => one.file.endsWith('upgrade_4_0_to_4_1/migration.sql'))!;
    expect(migration).toMatchObject({ kind: 'conflict', proposalFile: `${migration.file}.gatekit-new` });
    expect(migration.action).toContain('prisma/schema.prisma conflicts, so the migration is only proposed');
    expect(migration.content).toContain('CREATE TABLE "SigningKey"');
  });

  it('says an app at this release has nothing to upgrade, and refuses a downgrade, a release it cannot render and a folder without gatekit.json', async () => {
    const current = path.join(work, 'current');
    writeTree(current, generateProject({ projectName: 'current', choices: mergeChoices({ auth: ['jwt'] }, { pm: 'npm' }), registry }).tree);
    expect(await upgrade(current)).toMatchObject({ upToDate: true, changes: [] });

    const newer = app40({ auth: ['jwt'] });
    const rewrite = (dir: string, change: (metadata: Record<string, any>) => void) => {
      const metadata = JSON.parse(read(dir, 'gatekit.json'));
      change(metadata);
      writeFileSync(path.join(dir, 'gatekit.json'), JSON.stringify(metadata, null, 2));
    };
    rewrite(newer, (metadata) => Object.assign(metadata, { generator: { name: 'create-gatekit', version: '4.2.0' }, templateVersion: '4.2' }));
    expect(await refusal(() => upgrade(newer))).toMatch(/made by create-gatekit 4\.2\.0 \(release 4\.2\), which is newer than this one .*upgrade never goes back.*Nothing was written\./);
    rewrite(newer, (metadata) => Object.assign(metadata, { generator: { name: 'create-gatekit', version: '4.1.99' }, templateVersion: '4.1' }));
    expect(await refusal(() => upgrade(newer))).toContain('upgrade never goes back');

    const older = app40({ auth: ['jwt'] });
    rewrite(older, (metadata) => {
      metadata.generator.version = '3.5.0';
      delete metadata.choices;
    });
    expect(await refusal(() => upgrade(older))).toMatch(/brings apps made by release 4\.0 or later to 4\.1; this app was made by create-gatekit 3\.5\.0 \(release 3\.5\).*npx create-gatekit@3\.5\.0 add/);

    expect(await refusal(() => upgrade(path.join(work, 'nothing-here')))).toMatch(/No gatekit\.json in .*upgrade works in an app made by create-gatekit/);
  });

  it('add sends an app of release 4.0 to upgrade first', () => {
    const dir = app40({ auth: ['jwt'] });
    expect(() => planAdd({ appDir: dir, ids: ['api-keys'], registry })).toThrow(/made by release 4\.0 \(create-gatekit 3\.7\.0\), and this is 4\.1.*Run `create-gatekit upgrade` first.*then add api-keys/);
  });
});

describe('merging by meaning', () => {
  it('package.json: moves, adds and drops what the release changed, keeps what the owner changed or added', () => {
    const base = JSON.stringify({ name: 'a', scripts: { dev: 'x', old: 'o' }, dependencies: { express: '^5.0.0' }, devDependencies: { jose: '^6.0.0', vitest: '^4.0.0' } }, null, 2);
    const next = JSON.stringify({ name: 'a', scripts: { dev: 'x', keys: 'k' }, dependencies: { express: '^5.0.0', jose: '^6.0.0' }, devDependencies: { vitest: '^4.1.0' } }, null, 2);
    const mine = JSON.stringify({ name: 'a', scripts: { dev: 'x --inspect', old: 'o', mine: 'm' }, dependencies: { express: '^5.0.0', lodash: '^4.0.0' }, devDependencies: { jose: '^6.0.0', vitest: '^4.0.0' } }, null, 2);
    const merged = JSON.parse(mergePackageJson(mine, base, next)!.content);
    expect(merged).toEqual({
      name: 'a',
      scripts: { dev: 'x --inspect', mine: 'm', keys: 'k' },
      dependencies: { express: '^5.0.0', jose: '^6.0.0', lodash: '^4.0.0' },
      devDependencies: { vitest: '^4.1.0' },
    });
  });

  it('.env.example: a conflicting region merges variable by variable', () => {
    const base = ['# The secret', 'JWT_SECRET=x', '# Lifetime', 'JWT_EXPIRES_IN=15m'];
    const mine = ['# The secret', 'JWT_SECRET=x', '# Lifetime', 'JWT_EXPIRES_IN=1h', '# Ours', 'OUR_FLAG=1'];
    const theirs = ['# The secret, for HS256', 'JWT_SECRET=x', '# Algorithm', 'JWT_ALGORITHM=HS256', '# Lifetime', 'JWT_EXPIRES_IN=15m'];
    expect(resolveEnvRegion(mine, base, theirs)).toEqual(['# The secret, for HS256', 'JWT_SECRET=x', '# Algorithm', 'JWT_ALGORITHM=HS256', '# Lifetime', 'JWT_EXPIRES_IN=1h', '# Ours', 'OUR_FLAG=1']);
    // A line that is no variable and that the owner changed: left to the owner.
    expect(resolveEnvRegion(['# --- mine ---', '', ...mine], ['# --- Base ---', '', ...base], theirs)).toBeUndefined();
  });
});
