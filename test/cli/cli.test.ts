import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BIN, ROOT, runCli } from '../helpers/run-cli.js';
import { CURRENT_RELEASE } from '../../src/core/releases.js';

const work = mkdtempSync(path.join(tmpdir(), 'gatekit-cli-'));
const target = (name: string) => path.join(work, name);


/** A folder for PATH holding an npm that runs (the check before writing passes) but whose install fails. */
function failingNpm(): string {
  const bin = path.join(work, 'failing-npm-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\n[ "$1" = "--version" ] && echo 11.0.0 && exit 0\necho "npm error code E404" >&2\nexit 1\n', { mode: 0o755 });
  return bin;
}

describe('usage errors exit 2 with a message naming the bad value', () => {
  it('unknown flag', () => {
    const result = runCli(['app', '--oath', 'github']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--oath/);
    expect(result.stderr).toMatch(/--oauth/);
  });

  it('unknown module id, with a suggestion', () => {
    const result = runCli([target('a'), '--yes', '--auth', 'jtw']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("'jtw'");
    expect(result.stderr).toContain("Did you mean 'jwt'?");
    expect(existsSync(target('a'))).toBe(false);
  });

  it('bad template version', () => {
    const result = runCli([target('b'), '--yes', '--template-version', '0.9']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Valid releases: 1.0, 1.1, 2.0, 2.1, 2.2, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7, 4.0, 4.1');
  });

  it('invalid config file', () => {
    const file = path.join(work, 'bad.json');
    writeFileSync(file, '{"database": "sqlite"}');
    const result = runCli([target('c'), '--yes', '--config', file]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('database');
  });

  it('non-empty directory without --force, and nothing in it is touched', () => {
    const dir = target('busy');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    const result = runCli([dir, '--yes', '--no-install', '--no-git']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('not empty');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('no TTY and no directory: never waits, explains', () => {
    const result = runCli(['--auth', 'jwt']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Missing the project directory');
  });
});

describe('generate', () => {
  it('--dry-run lists the files and writes nothing', () => {
    const dir = target('dry');
    const result = runCli([dir, '--yes', '--dry-run']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('src/app.ts');
    expect(result.stdout).toContain('Nothing was written.');
    expect(existsSync(dir)).toBe(false);
  });

  it('--json prints one JSON summary on stdout and human lines on stderr', () => {
    const dir = target('json');
    const result = runCli([dir, '--yes', '--no-install', '--no-git', '--no-orgs', '--no-pages', '--json']);
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.directory).toBe(dir);
    expect(summary.modules).toEqual([
      { id: 'base', category: 'base', tag: '1.0' },
      { id: 'jwt', category: 'direct', tag: '1.0' },
    ]);
    expect(summary.files.map((file: { path: string }) => file.path)).toContain('gatekit.json');
    expect(summary.nextSteps[0]).toBe(`cd ${dir}`);
    expect(result.stderr).toContain('Wrote');
  });

  // Issue 31, item 9: the passkey note sat between `npm run db:migrate` and `npm run dev`.
  it('next steps: the commands together, then the notes of the modules chosen; add prints them the same way', () => {
    const dir = target('steps');
    const result = runCli([dir, '--yes', '--no-install', '--no-git', '--auth', 'jwt,passkey', '--no-orgs', '--no-pages', '--pm', 'npm']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Next steps:\n  cd ${dir}\n  npm install\n  npm run db:migrate\n  npm run dev\n\n  Passkeys are bound to WEBAUTHN_RP_ID`);
    const added = runCli(['add', 'magic-link', 'github', '--cwd', dir, '--no-install', '--json']);
    expect(added.status, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).nextSteps).toEqual(['npm install', 'npm run db:migrate', 'npm run dev', expect.stringMatching(/^Set SMTP_\*/), expect.stringMatching(/^GitHub: /)]);
    expect(added.stderr).toMatch(/Next steps:\n  npm install\n  npm run db:migrate\n  npm run dev\n\n  Set SMTP_\* and MAIL_FROM.*\n  GitHub: create credentials/);
  });

  it('writes gatekit.json with the command that reproduces the project', () => {
    const dir = target('meta');
    expect(runCli([dir, '--yes', '--no-install', '--no-git', '--no-orgs', '--no-pages', '--db', 'postgresql']).status).toBe(0);
    const metadata = JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'));
    expect(metadata).toMatchObject({ templateVersion: CURRENT_RELEASE, database: 'postgresql', modules: [{ id: 'base' }, { id: 'jwt', category: 'direct', tag: '1.0' }] });
    expect(metadata.command).toContain('--no-orgs --no-pages');
    const again = target('meta-again');
    const args = metadata.command.replace('npx create-gatekit meta', again).split(' ');
    expect(runCli([...args, '--no-install', '--no-git']).status).toBe(0);
    const reproduced = JSON.parse(readFileSync(path.join(again, 'gatekit.json'), 'utf8'));
    expect(reproduced.modules).toEqual(metadata.modules);
    expect(readFileSync(path.join(again, 'prisma/schema.prisma'), 'utf8')).toBe(readFileSync(path.join(dir, 'prisma/schema.prisma'), 'utf8'));
  });

  it('reproduces a project with OAuth providers and every feature module (internal modules are not named)', () => {
    const dir = target('meta-oauth');
    expect(runCli([dir, '--yes', '--no-install', '--no-git', '--oauth', 'github,apple']).status).toBe(0);
    const metadata = JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'));
    expect(metadata.command).toContain('--oauth github,apple --orgs --pages');
    const again = target('meta-oauth-again');
    const result = runCli([...metadata.command.replace('npx create-gatekit meta-oauth', again).split(' '), '--no-install', '--no-git']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(again, 'gatekit.json'), 'utf8')).modules).toEqual(metadata.modules);
  });

  it('--force writes into a non-empty directory and keeps unrelated files', () => {
    const dir = target('forced');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    expect(runCli([dir, '--yes', '--no-install', '--no-git', '--force']).status).toBe(0);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(existsSync(path.join(dir, 'package.json'))).toBe(true);
  });

  it('a failing install exits 1, names the step and how to retry, and keeps the written project', () => {
    const dir = target('failing');
    const result = runCli([dir, '--yes', '--no-git', '--pm', 'npm'], { env: { PATH: failingNpm(), npm_config_user_agent: '' } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("step 'install' failed");
    expect(result.stderr).toContain('To retry: cd');
    expect(existsSync(path.join(dir, 'package.json'))).toBe(true);
  });
});

describe('list', () => {
  it('prints every module with category and tag', () => {
    const result = runCli(['list']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^jwt\s+direct\s+1\.0\s+/m);
    expect(result.stdout).toMatch(/^pages\s+module\s+3\.2\s+built-in pages/m);
    expect(result.stdout).toMatch(/^clerk\s+hosted\s+3\.0\s+Clerk/m);
    expect(result.stdout).toMatch(/^supabase\s+hosted\s+3\.1\s+/m);
    expect(result.stdout).not.toMatch(/^base\s/m);
    expect(result.stdout).not.toMatch(/^(hosted|hosted-token|identities|oauth)\s/m);
  });

  it('--json and --template-version filter by tag', () => {
    const all = JSON.parse(runCli(['list', '--json']).stdout);
    expect(all.modules.map((module: { id: string }) => module.id)).toContain('jwt');
    const old = JSON.parse(runCli(['list', '--json', '--template-version', '1.0']).stdout);
    expect(old.modules.every((module: { tag: string }) => module.tag === '1.0')).toBe(true);
    expect(runCli(['list', '--template-version', '7']).status).toBe(2);
  });
});

/** A pack folder with one feature module that declares its own flag (and only a manifest). */
function featurePack(id: string, flag: object = { default: false, prompt: 'Keep an audit log?' }): string {
  const pack = mkdtempSync(path.join(tmpdir(), 'gatekit-pack-'));
  mkdirSync(path.join(pack, id));
  writeFileSync(
    path.join(pack, id, 'gatekit.module.json'),
    JSON.stringify({ id, name: 'Audit log', category: 'module', tag: '3.2', description: 'who did what, when', flag }),
  );
  return pack;
}

const moduleIds = (stdout: string) => JSON.parse(stdout).modules.map((module: { id: string }) => module.id);

describe("feature modules' own flags", () => {
  it('come from the manifests: --orgs/--no-orgs and --pages/--no-pages', () => {
    const help = runCli(['--help']).stdout;
    for (const flag of ['--orgs', '--no-orgs', '--pages', '--no-pages', '--modules <ids>']) expect(help).toContain(flag);
    expect(help).toMatch(/--pages\s+add Built-in pages \(on by default\)/);
    const without = runCli([target('flags-off'), '--yes', '--dry-run', '--json', '--no-pages']);
    expect(moduleIds(without.stdout)).toEqual(['base', 'jwt', 'orgs']);
    const old = runCli([target('flags-old'), '--yes', '--dry-run', '--json', '--template-version', '3.1']);
    expect(moduleIds(old.stdout)).toEqual(['base', 'jwt', 'orgs']);
    const tooNew = runCli([target('flags-new'), '--yes', '--dry-run', '--template-version', '3.1', '--pages']);
    expect(tooNew.status).toBe(2);
    expect(tooNew.stderr).toContain('--pages needs Built-in pages, first shipped in release 3.2');
  });

  it('are config file keys, and a flag overrides only its own key', () => {
    const file = path.join(work, 'features.json');
    writeFileSync(file, JSON.stringify({ orgs: false, pages: false }));
    expect(moduleIds(runCli([target('config-off'), '--yes', '--dry-run', '--json', '--config', file]).stdout)).toEqual(['base', 'jwt']);
    expect(moduleIds(runCli([target('config-on'), '--yes', '--dry-run', '--json', '--config', file, '--pages']).stdout)).toEqual(['base', 'jwt', 'pages']);
  });

  it("take a pack's feature module flag and default from its manifest", () => {
    const pack = featurePack('audit-log');
    expect(runCli(['--help', '--pack', pack]).stdout).toMatch(/--audit-log\s+add Audit log \(off by default\)/);
    const off = runCli([target('pack-off'), '--yes', '--dry-run', '--json', '--no-orgs', '--no-pages', '--pack', pack]);
    expect(moduleIds(off.stdout)).toEqual(['base', 'jwt']);
    const on = runCli([target('pack-on'), '--yes', '--dry-run', '--json', '--no-orgs', '--no-pages', '--pack', pack, '--audit-log']);
    expect(moduleIds(on.stdout)).toEqual(['base', 'jwt', 'audit-log']);
    const viaModules = runCli([target('pack-modules'), '--yes', '--dry-run', '--json', '--no-orgs', '--no-pages', `--pack=${pack}`, '--modules', 'audit-log']);
    expect(moduleIds(viaModules.stdout)).toEqual(['base', 'jwt', 'audit-log']);
    expect(runCli(['list', '--pack', pack]).stdout).toMatch(/^audit-log\s+module\s+3\.2\s+who did what/m);
  });

  it('refuse a feature module whose flag is already an option of the generator', () => {
    const result = runCli([target('pack-clash'), '--yes', '--dry-run', '--pack', featurePack('install', { default: true, prompt: 'Install?' })]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Module 'install'");
    expect(result.stderr).toContain('--install is already an option');
  });
});

describe('add', () => {
  const generated = (name: string, extra: string[] = []) => {
    const dir = target(name);
    const result = runCli([dir, '--yes', '--no-install', '--no-git', '--auth', 'jwt', '--no-orgs', '--no-pages', ...extra]);
    expect(result.status, result.stderr).toBe(0);
    return dir;
  };
  const snapshot = (dir: string) =>
    Object.fromEntries(
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => !file.includes('node_modules'))
        .map((file) => [file, existsSync(path.join(dir, file)) && !statSync(path.join(dir, file)).isDirectory() ? readFileSync(path.join(dir, file), 'utf8') : 'dir']),
    );

  it('without ids and without a TTY: exit 2, naming the modules the app can add', () => {
    const dir = generated('add-none');
    const result = runCli(['add', '--cwd', dir]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Name the modules to add: create-gatekit add <module...>. Modules this app can add: ');
    expect(result.stderr).toMatch(/can add: .*\bgithub\b/);
    expect(result.stderr).toMatch(/can add: .*\borgs\b/);
    expect(result.stderr).not.toMatch(/can add: .*\bjwt\b/);
  });

  it('an unknown id: exit 2 with a suggestion and nothing written', () => {
    const dir = generated('add-unknown');
    const before = snapshot(dir);
    const result = runCli(['add', 'ogrs', '--cwd', dir]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Unknown module 'ogrs'. Did you mean 'orgs'?");
    expect(snapshot(dir)).toEqual(before);
  });

  it('--dry-run --json prints the plan as JSON and writes nothing', () => {
    const dir = generated('add-dry');
    writeFileSync(path.join(dir, 'src/app.ts'), readFileSync(path.join(dir, 'src/app.ts'), 'utf8').replace('applySecurity(app, config);', 'applySecurity(app, config);\n  // mine'));
    const before = snapshot(dir);
    const result = runCli(['add', 'totp', '--cwd', dir, '--dry-run', '--json']);
    expect(result.status, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.dryRun).toBe(true);
    expect(plan.added.map((module: { id: string }) => module.id)).toEqual(['totp']);
    expect(plan.files).toContainEqual({ path: 'src/app.ts', change: 'merged' });
    expect(plan.migration).toMatch(/_add_totp\/migration\.sql$/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('--dry-run shows a conflict and the action it will need, and writes nothing', () => {
    const dir = generated('add-dry-conflict');
    const hooks = path.join(dir, 'src/modules/auth/account-hooks.ts');
    writeFileSync(hooks, readFileSync(hooks, 'utf8').replace('export const loginChecks: LoginCheck[] = [];', 'export const loginChecks: LoginCheck[] = [/* mine */];'));
    const before = snapshot(dir);
    const result = runCli(['add', 'totp', '--cwd', dir, '--dry-run']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('Conflicting with your edits (your file is untouched):\n  src/modules/auth/account-hooks.ts -> src/modules/auth/account-hooks.ts.gatekit-new');
    expect(result.stdout).toMatch(/Action needed \(1\):\n  src\/modules\/auth\/account-hooks\.ts: resolve the conflict markers at line \d+/);
    expect(result.stdout).toContain('Nothing was written.');
    expect(snapshot(dir)).toEqual(before);
  });

  it('a conflict: every other step still runs, the report names the file and line, and the exit code is 3 (issue 24, row 12)', () => {
    const dir = generated('add-conflict');
    const hooks = path.join(dir, 'src/modules/auth/account-hooks.ts');
    const mine = readFileSync(hooks, 'utf8').replace('export const loginChecks: LoginCheck[] = [];', 'export const loginChecks: LoginCheck[] = [/* mine */];');
    writeFileSync(hooks, mine);
    const migrations = readdirSync(path.join(dir, 'prisma/migrations'));
    const result = runCli(['add', 'totp', '--cwd', dir, '--no-install']);
    expect(result.status, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/Action needed \(1\):\n  src\/modules\/auth\/account-hooks\.ts: resolve the conflict markers at line \d+ of src\/modules\/auth\/account-hooks\.ts\.gatekit-new/);
    expect(result.stdout).toContain('Added totp; 1 file(s) need your hand');
    expect(readFileSync(hooks, 'utf8')).toBe(mine);
    expect(readFileSync(`${hooks}.gatekit-new`, 'utf8')).toContain('<<<<<<< your version');
    // The other steps ran: the module is recorded, its migration and env vars are there.
    expect(JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8')).modules.map((module: { id: string }) => module.id)).toContain('totp');
    expect(readdirSync(path.join(dir, 'prisma/migrations')).filter((name) => !migrations.includes(name))).toEqual([expect.stringMatching(/_add_totp$/)]);
  });

  it('a failing install exits 1 and leaves the app as it was', () => {
    const dir = generated('add-fails');
    const before = snapshot(dir);
    const result = runCli(['add', 'orgs', '--cwd', dir], { env: { PATH: path.join(work, 'no-bin') } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("step 'install' failed");
    expect(result.stderr).toContain('put back as they were');
    expect(result.stderr).toContain(`To retry: fix the cause, then create-gatekit add orgs --cwd ${dir}`);
    expect(snapshot(dir)).toEqual(before);
  });

  it('--no-install writes the plan and records the modules and packs in gatekit.json', () => {
    const dir = generated('add-pack');
    const result = runCli(['add', 'audit-log', '--cwd', dir, '--no-install', '--pack', path.join(ROOT, 'examples/packs/audit-log')]);
    expect(result.status, result.stderr).toBe(0);
    const metadata = JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'));
    expect(metadata.modules.map((module: { id: string }) => module.id)).toContain('audit-log');
    expect(metadata.packs).toEqual([expect.objectContaining({ name: 'gatekit-pack-audit-log', version: '1.0.0' })]);
    expect(metadata.command).toContain('--modules audit-log');
    expect(result.stdout).toContain('npm install');
    const again = runCli(['add', 'audit-log', '--cwd', dir, '--no-install']);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('audit-log is already in this app');
  });
});

describe('pack check', () => {
  it('passes the example packs (manifests, renders, migrations against the schema engine)', () => {
    for (const name of ['keycloak', 'audit-log']) {
      const result = runCli(['pack', 'check', path.join(ROOT, 'examples/packs', name), '--no-typecheck']);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('The pack is ready to publish.');
    }
  });

  it('finds a stale migration and writes the right one with --write-migrations', () => {
    const dir = path.join(work, 'stale-pack');
    cpSync(path.join(ROOT, 'examples/packs/audit-log'), dir, { recursive: true });
    const sqlite = path.join(dir, 'audit-log/migrations/sqlite.sql');
    const right = readFileSync(sqlite, 'utf8');
    writeFileSync(sqlite, right.replace('"action" TEXT NOT NULL', '"action" TEXT'));
    const stale = runCli(['pack', 'check', dir, '--no-typecheck']);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain(sqlite);
    expect(stale.stderr).toContain('--write-migrations');
    expect(runCli(['pack', 'check', dir, '--no-typecheck', '--write-migrations']).status).toBe(0);
    expect(readFileSync(sqlite, 'utf8')).toBe(right);
  }, 120_000); // two pack checks with the schema engine: slow on a loaded 2-core machine

  it('a broken manifest: exit 2 naming the file and the field', () => {
    const dir = path.join(work, 'broken-pack');
    cpSync(path.join(ROOT, 'examples/packs/keycloak'), dir, { recursive: true });
    const manifest = path.join(dir, 'keycloak/gatekit.module.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"tag": "3.2"', '"tag": "latest"'));
    const result = runCli(['pack', 'check', dir, '--no-typecheck']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(manifest);
    expect(result.stderr).toContain('tag: a tag is X.Y');
  });
});

describe('generate with packs', () => {
  it('a pack provider and a pack feature are chosen like built-ins and recorded for later', () => {
    const dir = target('with-packs');
    const keycloak = path.join(ROOT, 'examples/packs/keycloak');
    const auditLog = path.join(ROOT, 'examples/packs/audit-log');
    const result = runCli([dir, '--yes', '--no-install', '--no-git', '--oauth', 'github,keycloak', '--modules', 'audit-log', '--pack', keycloak, '--pack', auditLog]);
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'src/modules/auth/oauth/providers/keycloak.ts'))).toBe(true);
    expect(readFileSync(path.join(dir, 'src/app.ts'), 'utf8')).toContain('createAuditLogRoutes(context)');
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('/api/auth/keycloak/callback');
    const metadata = JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'));
    expect(metadata.packs.map((pack: { name: string }) => pack.name)).toEqual(['gatekit-pack-keycloak', 'gatekit-pack-audit-log']);
    expect(metadata.command).toContain(`--oauth github,keycloak --hosted`.replace(' --hosted', ''));
    expect(metadata.command).toContain(`--modules audit-log`);
    expect(metadata.command).toContain(`--pack ${keycloak} --pack ${auditLog}`);
  });

  it('an unknown pack module id names the ids the pack offers', () => {
    const result = runCli([target('bad-pack-id'), '--yes', '--no-install', '--oauth', 'keycloack', '--pack', path.join(ROOT, 'examples/packs/keycloak')]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Did you mean 'keycloak'?");
  });
});

describe('template packs are data: nothing in a pack runs, and nothing outside it is read (issue 22, finding 8)', () => {
  const attack = mkdtempSync(path.join(tmpdir(), 'gatekit-pack-attack-'));
  const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/^\s+at /m);
  const module = { id: 'evil', name: 'Evil', category: 'module', tag: '3.0', description: 'a hostile pack' };
  /** A pack folder with one module `evil`: its manifest and files (relative path -> content). */
  const pack = (name: string, files: Record<string, string> = {}, manifest: object = {}) => {
    const dir = path.join(attack, name);
    mkdirSync(path.join(dir, 'evil'), { recursive: true });
    writeFileSync(path.join(dir, 'evil', 'gatekit.module.json'), JSON.stringify({ ...module, ...manifest }));
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, 'evil', file)), { recursive: true });
      writeFileSync(path.join(dir, 'evil', file), content);
    }
    return dir;
  };
  const generate = (name: string, packDir: string, extra: string[] = []) =>
    runCli([path.join(attack, name), '--yes', '--no-install', '--auth', 'jwt', '--no-orgs', '--no-pages', '--modules', 'evil', '--pack', packDir, ...extra]);
  const secret = path.join(attack, 'secret.txt');
  writeFileSync(secret, 'TOP-SECRET-VALUE');
  const app = (name: string) => {
    const dir = path.join(attack, name);
    const result = runCli([dir, '--yes', '--no-install', '--no-git', '--auth', 'jwt', '--no-orgs', '--no-pages']);
    expect(result.status, result.stderr).toBe(0);
    return dir;
  };
  /** Every file and link under `dir`, with its content (links as their target), to prove nothing changed. */
  const contents = (dir: string) =>
    Object.fromEntries(
      readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => {
        const full = path.join(dir, file);
        const stat = lstatSync(full);
        return [file, stat.isSymbolicLink() ? `-> ${readlinkSync(full)}` : stat.isDirectory() ? 'dir' : readFileSync(full, 'utf8')];
      }),
    );

  // Before: the CLI's own `git add -A` ran the pack's core.fsmonitor command, even with --no-install; exit 0.
  it('a pack with files/.git (a core.fsmonitor command, a hook) is refused before anything is written or run', () => {
    const marker = path.join(attack, 'fsmonitor-ran');
    const command = `touch ${marker}; false`;
    const dir = pack('git-config', {
      'files/.git/config': `[core]\n\tfsmonitor = "${command}"\n`,
      'files/.git/hooks/pre-commit': `#!/bin/sh\ntouch ${marker}\n`,
      'files/src/evil.ts': 'export {};\n',
    });
    const result = generate('git-config-app', dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${path.join(dir, 'evil/files/.git')} is a .git folder`);
    noStackTrace(result.stderr);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(attack, 'git-config-app'))).toBe(false);

    // A template named _git becomes .git in the project (a "gitdir:" file pointing git anywhere).
    const dotfile = pack('git-dotfile', { 'files/_git': `gitdir: ${attack}\n` });
    const again = generate('git-dotfile-app', dotfile);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`${path.join(dotfile, 'evil/files/_git')} would be .git in the project`);
    expect(existsSync(path.join(attack, 'git-dotfile-app'))).toBe(false);

    // add would have written the pack's .git/config over the app's own.
    const target = app('git-config-add');
    const before = contents(target);
    const add = runCli(['add', 'evil', '--cwd', target, '--no-install', '--pack', dir]);
    expect(add.status).toBe(2);
    expect(add.stderr).toContain('is a .git folder');
    noStackTrace(add.stderr);
    expect(contents(target)).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  // Before: exit 0, and the secret file was copied into the new project (as its README section, or its files).
  it("a manifest path with '..' or an absolute path is refused, naming the file, the field and the valid values; nothing is copied", () => {
    const cases: [string, object, string][] = [
      ['dotdot-readme', { readme: '../../secret.txt' }, "readme: '../../secret.txt' leaves the folder with '..'"],
      ['dotdot-files', { files: '../..' }, "files: '../..' leaves the folder with '..'"],
      ['absolute-schema', { schema: secret }, `schema: '${secret}' is absolute`],
      ['absolute-with', { filesWith: { jwt: attack } }, `filesWith.jwt: '${attack}' is absolute`],
    ];
    for (const [name, manifest, message] of cases) {
      const dir = pack(name, {}, manifest);
      const result = generate(`${name}-app`, dir);
      expect(result.status, name).toBe(2);
      expect(result.stderr).toContain(`Invalid module manifest ${path.join(dir, 'evil/gatekit.module.json')}: ${message}`);
      expect(result.stderr).toContain("Valid values: a path inside the module folder, relative, with '/' between folders and no '..'");
      noStackTrace(result.stderr);
      expect(existsSync(path.join(attack, `${name}-app`))).toBe(false);
      expect(result.stdout + result.stderr).not.toContain('TOP-SECRET-VALUE');
    }
    // A package's "gatekit.modules" folder stays inside the package too.
    const outer = path.join(attack, 'outer-modules');
    mkdirSync(outer);
    writeFileSync(path.join(outer, 'package.json'), JSON.stringify({ name: 'outer', version: '1.0.0', gatekit: { modules: '../dotdot-readme' } }));
    const result = runCli([path.join(attack, 'outer-app'), '--yes', '--no-install', '--pack', outer]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`Invalid pack ${path.join(outer, 'package.json')}: field "gatekit.modules" '../dotdot-readme' leaves the folder with '..'. Valid values: true`);
    noStackTrace(result.stderr);
  }, 120_000);

  // Before: exit 0; the link's target (any file or folder on the machine) was copied into the project.
  it('a pack holding a symbolic link (to a file, to a folder, as a module folder) is refused', () => {
    const fileLink = pack('link-file', { 'files/src/ok.ts': 'export {};\n' });
    symlinkSync(secret, path.join(fileLink, 'evil/files/secret.txt'));
    const folderLink = pack('link-folder');
    mkdirSync(path.join(folderLink, 'evil/files'));
    symlinkSync(path.join(attack, 'link-file'), path.join(folderLink, 'evil/files/elsewhere'));
    const moduleLink = path.join(attack, 'link-module');
    mkdirSync(moduleLink);
    symlinkSync(path.join(fileLink, 'evil'), path.join(moduleLink, 'evil'));
    const cases: [string, string][] = [
      [fileLink, path.join(fileLink, 'evil/files/secret.txt')],
      [folderLink, path.join(folderLink, 'evil/files/elsewhere')],
      [moduleLink, path.join(moduleLink, 'evil')],
    ];
    for (const [dir, link] of cases) {
      const result = generate(`${path.basename(dir)}-app`, dir);
      expect(result.status, dir).toBe(2);
      expect(result.stderr).toContain(`Invalid pack: ${link} is a symbolic link (to `);
      expect(result.stderr).toContain('A pack may not hold symbolic links');
      noStackTrace(result.stderr);
      expect(existsSync(path.join(attack, `${path.basename(dir)}-app`))).toBe(false);
    }
  }, 60_000);

  it('pack check reports each of these: exit 2 naming the file, no stack trace', () => {
    const cases: [string, string][] = [
      [pack('check-git', { 'files/.git/config': '[core]\n\tfsmonitor = "false"\n' }), '.git is a .git folder'],
      [pack('check-dotdot', {}, { openapi: '../secret.txt' }), "openapi: '../secret.txt' leaves the folder with '..'"],
      [path.join(attack, 'link-file'), 'secret.txt is a symbolic link'],
    ];
    for (const [dir, message] of cases) {
      const result = runCli(['pack', 'check', dir, '--no-typecheck']);
      expect(result.status, dir).toBe(2);
      expect(result.stderr).toContain(dir);
      expect(result.stderr).toContain(message);
      noStackTrace(result.stderr);
    }
  }, 120_000);

  // Before: "unexpected failure" with a stack trace, exit 1.
  it('other pack mistakes exit 2 naming the file, never with a stack trace', () => {
    const template = pack('bad-template', { 'files/src/evil.ts.hbs': '{{#if db}}never closed\n' });
    const twice = pack('twice', { 'files/src/app.ts': 'export {};\n' });
    const notFolder = path.join(attack, 'modules-is-a-file');
    mkdirSync(notFolder);
    writeFileSync(path.join(notFolder, 'package.json'), JSON.stringify({ name: 'x', gatekit: { modules: 'package.json' } }));
    const cases: [string, string][] = [
      [template, `Invalid template ${path.join(template, 'evil/files/src/evil.ts.hbs')}: Parse error`],
      [twice, "Both 'base' and 'evil' write src/app.ts"],
      [notFolder, `Invalid pack ${path.join(notFolder, 'package.json')}: field "gatekit.modules" names 'package.json', which is not a folder`],
    ];
    for (const [dir, message] of cases) {
      const result = generate(`${path.basename(dir)}-app`, dir);
      expect(result.status, dir).toBe(2);
      expect(result.stderr).toContain(message);
      noStackTrace(result.stderr);
      expect(existsSync(path.join(attack, `${path.basename(dir)}-app`))).toBe(false);
    }
  }, 60_000);

  // Before: exit 0, and add wrote the new module's files (and rewrote others) in the folder outside the app.
  it('add never writes through a symbolic link that leads outside the app: exit 2 naming the link, nothing written inside or outside', () => {
    const target = app('linked-app');
    const outside = path.join(attack, 'outside-modules');
    cpSync(path.join(target, 'src/modules'), outside, { recursive: true });
    rmSync(path.join(target, 'src/modules'), { recursive: true });
    symlinkSync(outside, path.join(target, 'src/modules'));
    const before = { app: contents(target), outside: contents(outside) };
    for (const extra of [['--dry-run'], ['--no-install'], ['--no-install', '--json']]) {
      const result = runCli(['add', 'totp', '--cwd', target, ...extra]);
      expect(result.status, extra.join(' ')).toBe(2);
      expect(result.stderr).toContain(`${path.join(target, 'src/modules')} is a symbolic link to ${outside}, which is outside ${target}.`);
      expect(result.stderr).toContain('Nothing was written.');
      noStackTrace(result.stderr);
      expect({ app: contents(target), outside: contents(outside) }).toEqual(before);
    }

    // A link to a file outside (src/app.ts, which adding totp rewrites) is refused the same way.
    const fileTarget = app('linked-file-app');
    const outsideFile = path.join(attack, 'outside-app.ts');
    cpSync(path.join(fileTarget, 'src/app.ts'), outsideFile);
    rmSync(path.join(fileTarget, 'src/app.ts'));
    symlinkSync(outsideFile, path.join(fileTarget, 'src/app.ts'));
    const outsideBefore = readFileSync(outsideFile, 'utf8');
    const fileResult = runCli(['add', 'totp', '--cwd', fileTarget, '--no-install']);
    expect(fileResult.status).toBe(2);
    expect(fileResult.stderr).toContain(`${path.join(fileTarget, 'src/app.ts')} is a symbolic link to ${outsideFile}`);
    expect(readFileSync(outsideFile, 'utf8')).toBe(outsideBefore);
    expect(lstatSync(path.join(fileTarget, 'src/app.ts')).isSymbolicLink()).toBe(true);
  }, 120_000);

  it('add follows a symbolic link that stays inside the app', () => {
    const target = app('inner-link-app');
    renameSync(path.join(target, 'src/modules'), path.join(target, 'modules-real'));
    symlinkSync('../modules-real', path.join(target, 'src/modules'));
    const result = runCli(['add', 'totp', '--cwd', target, '--no-install']);
    expect(result.status, result.stderr).toBe(0);
    expect(lstatSync(path.join(target, 'src/modules')).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(target, 'modules-real/auth/two-factor'))).toBe(true);
  }, 60_000);

  it('generate --force does not write through a symbolic link that leads out of the folder either', () => {
    const dir = path.join(attack, 'forced-linked');
    const outside = path.join(attack, 'forced-outside');
    mkdirSync(dir);
    mkdirSync(outside);
    symlinkSync(outside, path.join(dir, 'src'));
    const result = runCli([dir, '--yes', '--no-install', '--no-git', '--force']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${path.join(dir, 'src')} is a symbolic link to ${outside}`);
    noStackTrace(result.stderr);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(dir)).toEqual(['src']);
  });
});

/** A directory on PATH whose npm succeeds at once (install and db:migrate), so no real install runs. */
function instantNpm(): string {
  const bin = path.join(work, 'instant-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(bin, 'npm'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('PostgreSQL needs a server before anything is written (issue 24, row 5)', () => {
  const pg = (name: string, env: NodeJS.ProcessEnv, extra: string[] = []) =>
    runCli([target(name), '--yes', '--db', 'postgresql', '--no-git', '--pm', 'npm', ...extra], { env: { PATH: instantNpm(), ...env } });

  it('no TTY and no DATABASE_URL: exit 2 naming DATABASE_URL, nothing written', () => {
    const result = pg('pg-none', { DATABASE_URL: '' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('set DATABASE_URL');
    expect(result.stderr).toContain('--no-install');
    noStack(result.stderr);
    expect(existsSync(target('pg-none'))).toBe(false);
  });

  it('a DATABASE_URL no server answers at: exit 2 naming it with the password masked and what to fix, nothing written; --dry-run refuses the same way', () => {
    const url = 'postgresql://app:s3cret-word@127.0.0.1:1/app';
    const result = pg('pg-down', { DATABASE_URL: url });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL postgresql://app:****@127.0.0.1:1/app cannot be used: cannot connect to 127.0.0.1:1 (ECONNREFUSED)');
    expect(result.stderr).toContain('Start the server, or correct the host and port in DATABASE_URL.');
    expect(result.stderr).not.toContain('s3cret-word');
    expect(existsSync(target('pg-down'))).toBe(false);
    const dry = pg('pg-down', { DATABASE_URL: url }, ['--dry-run']);
    expect([dry.status, dry.stderr]).toEqual([result.status, result.stderr]);
  });

  it('a server without the database: exit 2 saying so and how to create it', () => {
    const result = pg('pg-nodb', { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/gatekit_no_such_database' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('database "gatekit_no_such_database" does not exist');
    expect(result.stderr).toContain('createdb');
    expect(existsSync(target('pg-nodb'))).toBe(false);
  });

  it('a reachable server: the project is written with that DATABASE_URL in .env', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    const result = pg('pg-up', { DATABASE_URL: url });
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(path.join(target('pg-up'), '.env'), 'utf8')).toMatch(new RegExp(`^DATABASE_URL=${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
  });

  it('--no-install needs no URL, and says that .env holds the example', () => {
    const result = pg('pg-later', { DATABASE_URL: '' }, ['--no-install']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('DATABASE_URL in .env is the example from .env.example (postgresql://postgres:****@localhost:5432/app); set it to your server before db:migrate.');
  });
});

describe('targets, dry runs, help, pipes and --json failures (issue 24, row 6)', () => {
  it('a target that is a file, or below a file: exit 2 naming it, no stack trace', () => {
    const file = target('a-file');
    writeFileSync(file, 'mine');
    for (const args of [[file], [path.join(file, 'app')]]) {
      const result = runCli([...args, '--yes', '--no-install', '--no-git']);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('is a file, not a directory');
      noStack(result.stderr);
    }
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('--dry-run refuses exactly what the real run refuses, with the same exit code and message', () => {
    const busy = target('dry-busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'notes.txt'), 'mine');
    writeFileSync(target('dry-file'), 'mine');
    const cases: [string[], NodeJS.ProcessEnv][] = [
      [[busy], {}],
      [[target('dry-file')], {}],
      [[target('My App')], {}],
      // npm's reserved names (issue 31, item 7): accepted before, though npm refuses them as package names.
      [[target('node_modules')], {}],
      [[target('favicon.ico')], {}],
      [[target('dry-pg'), '--db', 'postgresql'], { DATABASE_URL: '' }],
      [[target('dry-id'), '--auth', 'jtw'], {}],
    ];
    for (const [args, env] of cases) {
      const real = runCli([...args, '--yes', '--no-git'], { env });
      const dry = runCli([...args, '--yes', '--no-git', '--dry-run'], { env });
      expect(real.status, args.join(' ')).toBe(2);
      expect([dry.status, dry.stderr]).toEqual([real.status, real.stderr]);
    }
    expect(runCli([target('node_modules'), '--yes', '--dry-run']).stderr).toContain("'node_modules' is a name npm reserves");
    expect(existsSync(target('node_modules')) || existsSync(target('favicon.ico'))).toBe(false);
    expect(readdirSync(busy)).toEqual(['notes.txt']);
  }, 180_000); // fifteen runs of the CLI

  it('help and help <command> print the help, and make no app named help', () => {
    const cwd = target('help-here');
    mkdirSync(cwd);
    const help = runCli(['help'], { cwd });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: create-gatekit [options] [command] [directory]');
    const add = runCli(['help', 'add'], { cwd });
    expect(add.status).toBe(0);
    expect(add.stdout).toContain('Usage: create-gatekit add [options] [modules...]');
    const check = runCli(['help', 'pack', 'check'], { cwd });
    expect(check.stdout).toContain('Usage: create-gatekit pack check [options] <dir>');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('output into a closed pipe ends quietly', () => {
    const busy = target('pipe');
    const result = spawnSync('sh', ['-c', `'${process.execPath}' '${BIN}' '${busy}' --yes --dry-run | head -1; exit \${PIPESTATUS:-0}`], {
      env: { ...process.env, CI: 'true' },
      encoding: 'utf8',
    });
    expect(result.stdout).toMatch(/^Dry run: would write \d+ files/);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toBe('');
  });

  it('with --json a failure prints { error: { code, message } } on stdout too', () => {
    const usage = runCli([target('json-bad'), '--yes', '--auth', 'jtw', '--json']);
    expect(usage.status).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({ error: { code: 'usage', message: expect.stringContaining("'jtw'") } });
    const flag = runCli([target('json-flag'), '--oath', 'github', '--json']);
    expect(flag.status).toBe(2);
    expect(JSON.parse(flag.stdout).error.code).toBe('usage');
    const step = runCli([target('json-step'), '--yes', '--no-git', '--pm', 'npm', '--json'], { env: { PATH: failingNpm(), npm_config_user_agent: '' } });
    expect(step.status).toBe(1);
    const error = JSON.parse(step.stdout).error;
    expect(error.code).toBe('step-failed');
    expect(error.message).toContain("step 'install' failed");
    expect(error.message).toContain(`To retry: cd ${target('json-step')} && npm install && npm run db:migrate`);
  });

  it('a failing install names what is on disk, the steps that did not run, and a retry line that runs git too', () => {
    const dir = target('failing-git');
    const result = runCli([dir, '--yes', '--pm', 'npm'], { env: { PATH: failingNpm(), npm_config_user_agent: '' } });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`The project is written to ${dir} (`);
    expect(result.stderr).toContain('Not run: database migrations (db:migrate), git init and a first commit.');
    expect(result.stderr).toContain(`To retry: cd ${dir} && npm install && npm run db:migrate && git init -b main && git add -A && git commit -m "Initial commit from create-gatekit" (git was skipped`);
    expect(existsSync(path.join(dir, '.git'))).toBe(false);
  });

  it('a config file mistake names the file, the key and the valid keys', () => {
    const file = path.join(work, 'typo.json');
    writeFileSync(file, JSON.stringify({ auth: 'jwt', install: 'yes', db: 'mongo', instal: true }));
    const result = runCli([target('config-typo'), '--yes', '--config', file]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`Config file '${file}' is invalid (`);
    expect(result.stderr).toContain('install: expected true or false, got "yes"');
    expect(result.stderr).toContain('db: "mongo" is not one of sqlite, postgresql, mysql');
    expect(result.stderr).toContain("unknown key 'instal' (did you mean 'install'?)");
    const missing = runCli([target('config-missing'), '--yes', '--config', path.join(work, 'nope.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`Cannot read config file '${path.join(work, 'nope.json')}': no such file.`);
    expect(result.stderr).toContain('Valid keys: auth, oauth, hosted, modules, db');
    noStack(result.stderr);
  });
});
