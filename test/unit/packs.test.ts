import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestError, UsageError } from '../../src/core/errors.js';
import { linkLeadingOutside, refuseLinksOutside } from '../../src/core/links.js';
import { MANIFEST_FILE } from '../../src/core/manifest.js';
import { checkModuleFolder, pathProblem } from '../../src/core/pack-files.js';
import { resolvePack } from '../../src/core/packs.js';
import { createRegistry, loadBuiltinModules, loadPack } from '../../src/core/registry.js';
import { ROOT, runCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'gatekit-packs-'));
const valid = { id: 'acme-sso', name: 'Acme SSO', category: 'oauth', tag: '3.2', description: 'Acme single sign-on', requires: ['oauth'] };

function packFolder(name: string, modules: Record<string, object>, packageJson?: object): string {
  const dir = path.join(work, name);
  for (const [folder, manifest] of Object.entries(modules)) {
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, MANIFEST_FILE), JSON.stringify(manifest));
  }
  mkdirSync(dir, { recursive: true });
  if (packageJson) writeFileSync(path.join(dir, 'package.json'), JSON.stringify(packageJson));
  return dir;
}

const load = (spec: string, from = [work]) => {
  const pack = resolvePack(spec, from);
  return createRegistry([...loadBuiltinModules(), ...loadPack(pack)], [pack.ref]);
};

describe('loading packs', () => {
  it('loads a folder pack and records its path', () => {
    const dir = packFolder('plain', { 'acme-sso': valid });
    const registry = load(dir);
    expect(registry.modules.get('acme-sso')?.source).toBe(dir);
    expect(registry.packs).toEqual([{ spec: dir, path: dir }]);
  });

  it('loads an installed npm package by name through its gatekit field, recording name and version', () => {
    const app = path.join(work, 'app');
    const installed = path.join(app, 'node_modules', '@acme', 'gatekit-sso');
    packFolder(path.relative(work, installed), { 'modules/acme-sso': valid }, { name: '@acme/gatekit-sso', version: '1.2.3', gatekit: { modules: 'modules' } });
    const registry = load('@acme/gatekit-sso', [app]);
    expect(registry.packs).toEqual([{ spec: '@acme/gatekit-sso', name: '@acme/gatekit-sso', version: '1.2.3' }]);
    expect(registry.modules.has('acme-sso')).toBe(true);
  });

  it('loads the example packs', () => {
    for (const name of ['keycloak', 'audit-log']) {
      const registry = load(path.join(ROOT, 'examples/packs', name));
      expect(registry.packs[0]).toMatchObject({ name: `gatekit-pack-${name}`, version: '1.0.0' });
    }
  });

  it('refuses a missing pack, naming what to do', () => {
    expect(() => load('gatekit-pack-nowhere')).toThrow(UsageError);
    expect(() => load('gatekit-pack-nowhere')).toThrow(/neither a folder nor an installed npm package.*npm install --save-dev gatekit-pack-nowhere/);
  });

  it('refuses an npm package without a gatekit field, and a bad gatekit field, naming file, field and valid values', () => {
    const app = path.join(work, 'app2');
    packFolder(path.relative(work, path.join(app, 'node_modules', 'not-a-pack')), { 'acme-sso': valid }, { name: 'not-a-pack', version: '1.0.0' });
    expect(() => load('not-a-pack', [app])).toThrow(ManifestError);
    expect(() => load('not-a-pack', [app])).toThrow(/not-a-pack\/package\.json\) is not a Gatekit pack: its package.json has no "gatekit" field. Valid values: true, or \{ "modules"/);
    packFolder(path.relative(work, path.join(app, 'node_modules', 'bad-field')), { 'acme-sso': valid }, { name: 'bad-field', gatekit: 'yes' });
    expect(() => load('bad-field', [app])).toThrow(/bad-field\/package\.json: field "gatekit" is "yes". Valid values: true/);
  });

  it('refuses an invalid manifest, naming the file, the field and the valid values', () => {
    const dir = packFolder('bad-category', { 'acme-sso': { ...valid, category: 'plugin' } });
    expect(() => load(dir)).toThrow(ManifestError);
    expect(() => load(dir)).toThrow(new RegExp(`${path.join(dir, 'acme-sso', MANIFEST_FILE).replace(/[/.]/g, '\\$&')}.*category: .*"base".*"direct".*"oauth".*"hosted".*"module"`));
  });

  it('never lets a pack id shadow a built-in or another pack', () => {
    const dir = packFolder('shadow', { github: { ...valid, id: 'github' } });
    expect(() => load(dir)).toThrow(/Module id 'github' is declared twice: by the built-in module in .*templates\/github and by pack '.*shadow'.*may not equal a built-in's/);
    const first = packFolder('first', { 'acme-sso': valid });
    const second = packFolder('second', { 'acme-sso': valid });
    const packs = [resolvePack(first, [work]), resolvePack(second, [work])];
    expect(() => createRegistry([...loadBuiltinModules(), ...packs.flatMap(loadPack)])).toThrow(/declared twice: by pack '.*first'.*and by pack '.*second'/);
  });

  it('refuses two chosen modules that define the same Prisma model, naming both, and writes nothing', () => {
    // The example pack's AuditEvent predates the built-in audit module's.
    const target = path.join(work, 'two-audit-events');
    const result = runCli([target, '--yes', '--pack', path.join(ROOT, 'examples/packs/audit-log'), '--modules', 'audit,audit-log', '--no-install', '--no-git']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Modules 'audit' and 'audit-log' both define the Prisma model AuditEvent");
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a pack with no module folder', () => {
    const dir = packFolder('empty', {}, { name: 'empty', gatekit: true });
    cpSync(dir, `${dir}-copy`, { recursive: true });
    expect(() => load(`${dir}-copy`)).toThrow(/has no module folders: each module is a folder with a gatekit.module.json/);
  });
});

describe('a pack is data: its folders and the paths its manifests name (issue 22, finding 8)', () => {
  it('passes every built-in module folder through the same check packs get (skipped at start-up for speed)', () => {
    const modules = loadBuiltinModules();
    expect(modules.length).toBeGreaterThan(20);
    for (const module of modules) expect(() => checkModuleFolder(module.dir), module.dir).not.toThrow();
  });

  it('keeps manifest paths inside the module folder and out of .git, in any spelling git would take', () => {
    for (const inside of ['files', 'schema.prisma', 'migrations', 'with-jwt', 'files/.github', 'a/./b', '.gitignore']) {
      expect(pathProblem(inside), inside).toBeUndefined();
    }
    const refused: [string, RegExp][] = [
      ['../secret', /'\.\.'/],
      ['files/../../secret', /'\.\.'/],
      ['..', /'\.\.'/],
      ['/etc/passwd', /absolute/],
      ['C:\\Users\\me\\secret', /absolute/],
      ['\\\\server\\share', /absolute/],
      ['files\\..\\..\\secret', /'\\'/],
      ['files/.git/config', /\.git/],
      ['.GIT/config', /\.git/],
      ['.git./config', /\.git/],
      ['GIT~1/config', /\.git/],
      ['', /empty/],
    ];
    for (const [value, problem] of refused) expect(pathProblem(value), value).toMatch(problem);
  });

  it('refuses a module folder holding a symbolic link, a .git folder, a template or folder named _git, or a FIFO', () => {
    const make = (name: string) => packFolder(name, { 'acme-sso': valid });
    const linked = make('unit-link');
    symlinkSync('/etc/passwd', path.join(linked, 'acme-sso', 'passwd'));
    expect(() => load(linked)).toThrow(new RegExp(`${path.join(linked, 'acme-sso', 'passwd')} is a symbolic link \\(to /etc/passwd\\)`));
    const git = make('unit-git');
    mkdirSync(path.join(git, 'acme-sso', 'files', '.Git'), { recursive: true });
    expect(() => load(git)).toThrow(/files\/\.Git is a \.git folder/);
    const dotfile = make('unit-dotfile');
    mkdirSync(path.join(dotfile, 'acme-sso', 'files'));
    writeFileSync(path.join(dotfile, 'acme-sso', 'files', '_git.hbs'), 'gitdir: /tmp\n');
    expect(() => load(dotfile)).toThrow(/_git\.hbs would be \.git in the project/);
    const dotfolder = make('unit-dotfolder');
    mkdirSync(path.join(dotfolder, 'acme-sso', 'files', '_git'), { recursive: true });
    expect(() => load(dotfolder)).toThrow(/files\/_git would be \.git in the project/);
    const fifo = make('unit-fifo');
    execFileSync('mkfifo', [path.join(fifo, 'acme-sso', 'pipe')]);
    expect(() => load(fifo)).toThrow(/pipe is neither a file nor a folder/);
    for (const dir of [linked, git, dotfile, dotfolder, fifo]) expect(() => load(dir)).toThrow(ManifestError);
  });

  it('loads a pack whose package folder is itself a link, as pnpm installs packages', () => {
    const app = path.join(work, 'pnpm-app');
    const store = packFolder('pnpm-store/gatekit-pack-sso', { 'acme-sso': valid }, { name: 'gatekit-pack-sso', version: '1.0.0', gatekit: true });
    mkdirSync(path.join(app, 'node_modules'), { recursive: true });
    symlinkSync(store, path.join(app, 'node_modules', 'gatekit-pack-sso'));
    expect(load('gatekit-pack-sso', [app]).modules.has('acme-sso')).toBe(true);
  });
});

describe('links out of the app', () => {
  it('finds the first link on the way to a file that leads outside the app, or nowhere, and follows links that stay inside', () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'gatekit-links-')));
    const outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'gatekit-outside-')));
    mkdirSync(path.join(root, 'real'));
    symlinkSync(path.join(root, 'real'), path.join(root, 'inner'));
    symlinkSync(outside, path.join(root, 'real', 'out'));
    symlinkSync(path.join(root, 'missing'), path.join(root, 'dangling'));
    expect(linkLeadingOutside(root, 'inner/new/file.ts')).toBeUndefined();
    expect(linkLeadingOutside(root, 'not-there/file.ts')).toBeUndefined();
    expect(linkLeadingOutside(root, 'inner/out/file.ts')).toEqual({ link: 'real/out', target: outside });
    expect(linkLeadingOutside(root, 'dangling/file.ts')).toEqual({ link: 'dangling', target: path.join(root, 'missing') });
    expect(() => refuseLinksOutside(root, ['inner/a.ts', 'inner/out/b.ts'], 'create-gatekit add')).toThrow(UsageError);
    expect(() => refuseLinksOutside(root, ['inner/out/b.ts'], 'create-gatekit add')).toThrow(/real\/out is a symbolic link to .*, which is outside .*Nothing was written/);
  });
});
