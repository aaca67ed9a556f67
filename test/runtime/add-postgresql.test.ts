import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../helpers/app-process.js';
import { WORK_DIR } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { findDrift, parsePostgresUrl, TEST_POSTGRES_URL } from '../helpers/schema-engine.js';
import { add, APP_EDIT, AUDIT_LOG_PACK, edit, inApp, migrationHashes, registerUser, signIn, treeHash, withApp } from './add.scenarios.js';
import { expectEveryTestPassed } from '../helpers/vitest-summary.js';

vi.setConfig({ testTimeout: 600_000, hookTimeout: 900_000 });

const dir = path.join(WORK_DIR, 'add-postgresql');
const read = (name: string) => readFileSync(path.join(dir, name), 'utf8');
const database = `gatekit_add_${process.pid}_${Date.now().toString(36)}`;
const server = parsePostgresUrl(TEST_POSTGRES_URL).connectionString;
const databaseUrl = (() => {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
})();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

let early: { email: string; token: string; refreshToken: string };
const ADDED = ['orgs', 'totp', 'github', 'audit-log', '--pack', AUDIT_LOG_PACK];
const HOOKS = 'src/modules/auth/account-hooks.ts';
let hooksEdit: string;

describe('add on a PostgreSQL app: orgs, totp, a provider and a pack module in one run', () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE "${database}"`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(WORK_DIR, { recursive: true });
    const generated = runCli([dir, '--auth', 'jwt', '--no-orgs', '--no-pages', '--db', 'postgresql', '--yes', '--no-git', '--pm', 'npm'], {
      env: { DATABASE_URL: databaseUrl },
    });
    expect(generated.status, generated.stderr).toBe(0);
    expect(read('.env')).toContain(`DATABASE_URL=${databaseUrl}`);
    inApp(dir, ['run', 'build']);
    early = await withApp(dir, {}, registerUser);
    edit(dir, 'src/app.ts', APP_EDIT.from, APP_EDIT.to);
    edit(dir, 'README.md', '\nAn Express 5', "\nOur team's sign-in service.\n\nAn Express 5");
    edit(dir, 'src/config.ts', 'export class ConfigError extends Error {}', '/** Thrown at start-up. */\nexport class ConfigError extends Error {}');
    // An edit on the very line that totp's login check goes into: a conflict.
    hooksEdit = edit(dir, HOOKS, 'export const loginChecks: LoginCheck[] = [];', 'export const loginChecks: LoginCheck[] = [/* none yet */];');
  });

  afterAll(async () => {
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  it('--dry-run prints the plan, the conflict included, and writes nothing', () => {
    const before = treeHash(dir);
    const result = add(dir, [...ADDED, '--dry-run']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Added:\n[\s\S]*src\/modules\/organizations\/organizations\.routes\.ts/);
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/app\.ts/);
    expect(result.stdout).toMatch(/Conflicting with your edits[^\n]*:\n  src\/modules\/auth\/account-hooks\.ts/);
    expect(result.stdout).toContain('Nothing was written.');
    expect(treeHash(dir)).toEqual(before);
  });

  it('migrates from the earlier state with one new migration, keeps the edits, and the old user signs in', async () => {
    const before = migrationHashes(dir);
    const result = add(dir, ADDED);
    // Every step ran; the conflict left for the user is exit code 3.
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(3);
    // The conflict: the user's file untouched, the proposal beside it, the line to act on named.
    expect(read(HOOKS)).toBe(hooksEdit);
    expect(existsSync(path.join(dir, `${HOOKS}.gatekit-new`))).toBe(true);
    expect(result.stdout).toMatch(/src\/modules\/auth\/account-hooks\.ts: resolve the conflict markers at line \d+ of src\/modules\/auth\/account-hooks\.ts\.gatekit-new/);
    // The user resolves it by taking the new side, as the report says.
    const proposal = read(`${HOOKS}.gatekit-new`);
    writeFileSync(path.join(dir, HOOKS), proposal.replace(/<<<<<<< your version\n[\s\S]*?=======\n([\s\S]*?)>>>>>>> create-gatekit add\n/g, '$1'));
    rmSync(path.join(dir, `${HOOKS}.gatekit-new`));
    for (const file of ['src/app.ts', 'README.md', 'src/config.ts']) {
      expect(result.stdout).toMatch(new RegExp(`Merged with your edits:\\n(  .*\\n)*  ${file.replace(/[/.]/g, '\\$&')}\\n`));
    }
    expect(read('README.md')).toContain("Our team's sign-in service.");
    expect(read('README.md')).toContain('## Audit log');
    expect(read('src/config.ts')).toContain('Thrown at start-up');
    const after = migrationHashes(dir);
    for (const [name, hash] of Object.entries(before)) expect(after[name], name).toBe(hash);
    expect(Object.keys(after).filter((name) => !(name in before))).toEqual([expect.stringMatching(/^\d{14}_add_identities_totp_orgs_audit_log$/)]);
    expect(await findDrift({ db: 'postgresql', url: databaseUrl, schema: read('prisma/schema.prisma') })).toBe('');

    expect(inApp(dir, ['run', 'typecheck'])).toContain('tsc --noEmit');
    const tests = inApp(dir, ['test']);
    expectEveryTestPassed(tests);
    expect(tests).not.toMatch(/skipped|failed/);
    for (const suite of ['organizations.test.ts', 'two-factor.test.ts', 'audit-log.test.ts', 'oauth.test.ts']) expect(tests).toContain(suite);

    inApp(dir, ['run', 'build']);
    await withApp(dir, {}, async (app) => {
      // The session started before the add lives on: its refresh token still refreshes.
      const refreshed = await call(app.url, '/api/auth/refresh', { json: { refreshToken: early.refreshToken } });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect((await call(app.url, '/api/auth/me', { token: refreshed.body.token })).status).toBe(200);
      const token = await signIn(app, early.email);
      expect((await call(app.url, '/api/hello')).body).toEqual({ hello: 'world' });
      expect((await call(app.url, '/api/organizations', { json: { name: 'Acme', slug: `acme-${Date.now()}` }, token })).status).toBe(201);
      // The new two-factor routes answer (an unverified address may not turn it on yet).
      const setup = await call(app.url, '/api/auth/2fa/setup', { method: 'POST', token });
      expect([setup.status, setup.body.error.code]).toEqual([403, 'EMAIL_NOT_VERIFIED']);
      expect((await call(app.url, '/api/audit-log', { token })).body.events).toHaveLength(1);
      expect((await call(app.url, '/api/auth/providers')).body.oauth.map((provider: { id: string }) => provider.id)).toEqual(['github']);
    });
  });
});
