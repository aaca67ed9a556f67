import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { WORK_DIR } from '../helpers/fixtures.js';
import { openSqlite } from '../helpers/sqlite-file.js';
import { edit } from './add.scenarios.js';
import { describeUpgrade, expectIdleUpgrade, followTheRecipe, generateWithRelease, git, upgrade } from './upgrade.scenarios.js';

// Installs, builds and runs the app's own suite twice (before and after the upgrade).
vi.setConfig({ testTimeout: 600_000, hookTimeout: 900_000 });

const databaseUrl = (dir: string) => `file:${path.join(dir, 'dev.db')}`;

describeUpgrade({
  db: 'sqlite',
  databaseUrl,
  verifyEmail: async (dir, email) => {
    const db = openSqlite(databaseUrl(dir));
    db.prepare('UPDATE User SET emailVerified = 1 WHERE email = ?').run(email);
    db.close();
  },
  lastSignInAt: async (dir, email) => {
    const db = openSqlite(databaseUrl(dir), { readonly: true });
    try {
      return (db.prepare('SELECT lastSignInAt FROM User WHERE email = ?').get(email) as { lastSignInAt: unknown }).lastSignInAt;
    } finally {
      db.close();
    }
  },
});

describe('upgrade of a release 4.0 app whose edits overlap the release', () => {
  it('exits 3 naming each conflict and its line, keeps the owner\'s file, and still does everything else', async () => {
    const dir = path.join(WORK_DIR, 'upgrade-conflict');
    await generateWithRelease('4.0', dir, ['--auth', 'jwt']);
    followTheRecipe(dir);
    // The very line release 4.1 changes (its guard takes API keys there).
    const routes = 'src/modules/organizations/organizations.routes.ts';
    const mine = edit(dir, routes, "router.post('/api/organizations', auth, async (req, res) => {", "router.post('/api/organizations', auth, ctx.rateLimit('invite-create'), async (req, res) => {");
    git(dir, ['init', '-q', '-b', 'main']);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'Our app']);

    const result = upgrade(dir);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(3);
    expect(result.stdout).toContain(`Conflicting with your edits (your file is untouched):\n  ${routes} -> ${routes}.gatekit-new`);
    expect(result.stdout).toMatch(new RegExp(`Action needed \\(1\\):\\n  ${routes.replace(/[./]/g, '\\$&')}: resolve the conflict markers at line \\d+ of ${routes.replace(/[./]/g, '\\$&')}\\.gatekit-new`));
    expect(result.stdout).toContain('Upgraded to release 4.1; 1 file(s) need your hand');
    expect(readFileSync(path.join(dir, routes), 'utf8')).toBe(mine);
    const proposal = readFileSync(path.join(dir, `${routes}.gatekit-new`), 'utf8');
    expect(proposal).toContain("<<<<<<< your version\n  router.post('/api/organizations', auth, ctx.rateLimit('invite-create'), async (req, res) => {\n=======");
    expect(proposal).toContain('>>>>>>> create-gatekit upgrade');
    // Nothing else lost: the recipe merged, the release's new files, migration, variables and metadata are there.
    const app = readFileSync(path.join(dir, 'src/app.ts'), 'utf8');
    expect(app).toContain('  app.use(createNotesRoutes(context));\n  app.use(notFoundHandler);');
    expect(app).toContain('createAccountRoutes(context)');
    expect(existsSync(path.join(dir, 'src/modules/auth/signing-keys/jwks.routes.ts'))).toBe(true);
    expect(existsSync(path.join(dir, 'src/modules/notes/notes.routes.ts'))).toBe(true);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toMatch(/^KEY_ENCRYPTION_KEYS=/m);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/\?\? prisma\/migrations\/\d{14}_upgrade_4_0_to_4_1\//);
    expect(JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'))).toMatchObject({ templateVersion: '4.1' });

    // Once upgraded, a second run has nothing to do, conflict or not.
    expectIdleUpgrade(dir, 'Upgrade (one conflict to resolve)');
  });
});
