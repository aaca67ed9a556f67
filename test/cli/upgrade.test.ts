import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeChoices, type PartialChoices } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { createRegistry, loadReleaseModules } from '../../src/core/registry.js';
import { releaseProfile } from '../../src/core/release-profile.js';
import { writeTree } from '../../src/core/write-tree.js';
import { BIN, runCli } from '../helpers/run-cli.js';
import { treeHash } from '../helpers/tree-hash.js';

const work = mkdtempSync(path.join(tmpdir(), 'gatekit-cli-upgrade-'));
const release40 = releaseProfile('4.0');
const registry40 = createRegistry(loadReleaseModules(release40), [], release40);

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=Owner', '-c', 'user.email=owner@example.com', ...args], { encoding: 'utf8' });
}

/**
 * An app as release 4.0 wrote it (the frozen release renders it byte for byte as 4.0's generator
 * did: test/unit/frozen-releases.test.ts), committed to git. The runtime tests use the real 4.0 build.
 */
function app40(name: string, choices: PartialChoices = { auth: ['jwt'] }): string {
  const dir = path.join(work, name);
  const project = generateProject({ projectName: name, choices: mergeChoices({ templateVersion: '4.0', ...choices }, { pm: 'npm', install: false, git: false }), registry: registry40 });
  writeTree(dir, project.tree);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'Made by release 4.0']);
  return dir;
}

const upgrade = (dir: string, args: string[] = []) => runCli(['upgrade', '--cwd', dir, ...args]);

describe('upgrade', () => {
  it('--dry-run lists every file it would add, replace, merge and remove, the migration and the new variables, and writes nothing', () => {
    const dir = app40('dry-run');
    const app = path.join(dir, 'src/app.ts');
    writeFileSync(app, readFileSync(app, 'utf8').replace('  app.use(notFoundHandler);', '  app.use(createNotesRoutes(context));\n  app.use(notFoundHandler);'));
    git(dir, ['commit', '-q', '-am', 'Our route']);
    const before = treeHash(dir);
    const result = upgrade(dir, ['--dry-run']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Dry run: would upgrade ${dir} from release 4.0 (create-gatekit 3.7.0) to 4.1 (create-gatekit 4.1.0)`);
    expect(result.stdout).toMatch(/Added:\n(  .*\n)*  src\/modules\/auth\/signing-keys\/jwks\.routes\.ts\n/);
    expect(result.stdout).toMatch(/Rewritten \(unchanged since generated\):\n(  .*\n)*  src\/modules\/auth\/guard\.ts\n/);
    expect(result.stdout).toMatch(/Merged with your edits:\n(  .*\n)*  src\/app\.ts\n/);
    expect(result.stdout).toMatch(/Removed \(no longer generated, unchanged since\):\n(  .*\n)*  src\/modules\/auth\/display-name\.ts\n/);
    expect(result.stdout).toMatch(/New migration: prisma\/migrations\/\d{14}_upgrade_4_0_to_4_1 \(the schema change of release 4\.1, then data steps 4\.1 base\); earlier migrations are not touched\./);
    expect(result.stdout).toContain('.env gains JWT_ALGORITHM, JWT_AUDIENCE, KEY_ENCRYPTION_KEYS, SIGNING_KEY_ROTATION_DAYS.');
    expect(result.stdout).toContain('Nothing was written.');
    expect(treeHash(dir)).toEqual(before);

    const json = upgrade(dir, ['--dry-run', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout);
    expect(plan).toMatchObject({ directory: dir, dryRun: true, from: '4.0', to: '4.1', upToDate: false, env: ['JWT_ALGORITHM', 'JWT_AUDIENCE', 'KEY_ENCRYPTION_KEYS', 'SIGNING_KEY_ROTATION_DAYS'] });
    expect(plan.files).toContainEqual({ path: 'src/app.ts', change: 'merged' });
    expect(plan.files).toContainEqual({ path: 'src/modules/auth/display-name.ts', change: 'removed' });
    expect(plan.migration).toMatchObject({ path: expect.stringMatching(/_upgrade_4_0_to_4_1\/migration\.sql$/), proposed: false, dataSteps: ['4.1 base'] });
    expect(treeHash(dir)).toEqual(before);
  });

  it('upgrades: writes the plan, records release 4.1, and a second run changes nothing', () => {
    const dir = app40('twice');
    const result = upgrade(dir);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('Upgraded to release 4.1.');
    expect(result.stdout).toMatch(/Next steps:\n  npm install\n  npm run db:migrate\n/);
    expect(existsSync(path.join(dir, 'src/modules/auth/display-name.ts'))).toBe(false);
    expect(existsSync(path.join(dir, 'src/http/display-name.ts'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'))).toMatchObject({ generator: { version: '4.1.0' }, templateVersion: '4.1' });
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'Upgrade to 4.1']);
    const before = treeHash(dir);
    const again = upgrade(dir);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`${dir} is at release 4.1 already (made by create-gatekit 4.1.0): nothing to upgrade.`);
    expect(treeHash(dir)).toEqual(before);
    expect(git(dir, ['status', '--porcelain'])).toBe('');
  });

  it('refuses uncommitted changes (with --dry-run too), naming them; --force upgrades anyway', () => {
    const dir = app40('dirty');
    writeFileSync(path.join(dir, 'src/config.ts'), `${readFileSync(path.join(dir, 'src/config.ts'), 'utf8')}// not committed\n`);
    writeFileSync(path.join(dir, 'notes.md'), 'mine\n');
    const before = treeHash(dir);
    for (const args of [[], ['--dry-run']]) {
      const result = upgrade(dir, args);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(`${dir} has uncommitted changes (2 files: notes.md, src/config.ts)`);
      expect(result.stderr).toContain('commit or stash them first, or pass --force. Nothing was written.');
    }
    expect(treeHash(dir)).toEqual(before);
    const forced = upgrade(dir, ['--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'src/config.ts'), 'utf8')).toContain('// not committed');
    expect(readFileSync(path.join(dir, 'notes.md'), 'utf8')).toBe('mine\n');
  });

  it('refuses, exit 2 and nothing written: no gatekit.json, a malformed one, a downgrade; --json says so on stdout', () => {
    const empty = path.join(work, 'no-app');
    mkdirSync(empty, { recursive: true });
    const none = upgrade(empty);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(`No gatekit.json in ${empty}: upgrade works in an app made by create-gatekit.`);

    const dir = app40('refusals');
    const metadataFile = path.join(dir, 'gatekit.json');
    const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
    const write = (value: unknown) => {
      writeFileSync(metadataFile, JSON.stringify(value, null, 2));
      git(dir, ['commit', '-q', '-am', 'gatekit.json']);
    };
    write({ ...metadata, files: { ...metadata.files, '../outside.txt': 'abc' } });
    const before = treeHash(dir);
    const malformed = upgrade(dir);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain("names '../outside.txt', which leaves the app with '..'");

    write({ ...metadata, generator: { name: 'create-gatekit', version: '4.2.0' }, templateVersion: '4.2' });
    const downgrade = upgrade(dir, ['--json']);
    expect(downgrade.status).toBe(2);
    expect(downgrade.stderr).toContain('made by create-gatekit 4.2.0 (release 4.2), which is newer than this one (4.1.0, release 4.1): upgrade never goes back.');
    expect(JSON.parse(downgrade.stdout).error.code).toBe('usage');
    const after = treeHash(dir);
    delete after['gatekit.json'];
    delete before['gatekit.json'];
    expect(after).toEqual(before);
  });

  it('reads only regular files inside the app: a link out of it and a FIFO are refused, exit 2, nothing written, no hang', () => {
    const upgradeIn = (dir: string) =>
      spawnSync(process.execPath, [BIN, 'upgrade', '--cwd', dir, '--force'], { env: { ...process.env, CI: 'true' }, input: '', encoding: 'utf8', timeout: 30_000 });
    const linked = app40('link-out');
    rmSync(path.join(linked, 'src/app.ts'));
    symlinkSync('/dev/zero', path.join(linked, 'src/app.ts'));
    const fifo = app40('fifo');
    rmSync(path.join(fifo, 'src/config.ts'));
    execFileSync('mkfifo', [path.join(fifo, 'src/config.ts')]);
    for (const [dir, reason] of [
      [linked, /src\/app\.ts is a symbolic link to \/dev\/zero, which is outside .*create-gatekit upgrade never writes through a link/],
      [fifo, /src\/config\.ts is a FIFO \(named pipe\), not a regular file/],
    ] as const) {
      const result = upgradeIn(dir);
      expect([result.status, result.signal], result.stderr).toEqual([2, null]);
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).toContain('Nothing was written.');
      expect(readFileSync(path.join(dir, 'gatekit.json'), 'utf8')).toContain('"version": "3.7.0"');
    }
  });

  it('add refuses an app of release 4.0 and says to run upgrade first', () => {
    const dir = app40('add-first');
    const result = runCli(['add', 'api-keys', '--cwd', dir, '--no-install']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('This app was made by release 4.0 (create-gatekit 3.7.0), and this is 4.1');
    expect(result.stderr).toContain('Run `create-gatekit upgrade` first');
  });

  it('help upgrade prints its options', () => {
    const result = runCli(['help', 'upgrade']);
    expect(result.status).toBe(0);
    for (const option of ['--cwd <dir>', '--dry-run', '--json', '--force', '--pack <pack>']) expect(result.stdout).toContain(option);
    expect(runCli(['--help']).stdout).toMatch(/upgrade \[options\]\s+bring an app made by an earlier release/);
  });
});
