import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyChanges } from '../../src/core/apply-changes.js';
import { mergeChoices } from '../../src/core/choices.js';
import { StepError, UsageError } from '../../src/core/errors.js';
import { generateProject } from '../../src/core/generate-project.js';
import { contentHash } from '../../src/core/generated-files.js';
import { appendMissingEnv } from '../../src/core/merge-env.js';
import { mergePackageJson } from '../../src/core/merge-package-json.js';
import { planAdd, planFile } from '../../src/core/plan-add.js';
import { resolvePack } from '../../src/core/packs.js';
import { createRegistry, loadBuiltinModules, loadPack } from '../../src/core/registry.js';
import { ROOT } from '../helpers/run-cli.js';
import { writeTree } from '../../src/core/write-tree.js';

const registry = createRegistry(loadBuiltinModules());
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-add-'));

/** An app as the generator writes it (no install), in a fresh folder. */
function appWith(choices: Parameters<typeof mergeChoices>[0], name = `app-${Math.random().toString(36).slice(2, 8)}`): string {
  const dir = path.join(work, name);
  const project = generateProject({ projectName: name, choices: mergeChoices(choices, { pm: 'npm', install: false, git: false }), registry, now: new Date('2026-01-01T00:00:00Z') });
  writeTree(dir, project.tree);
  return dir;
}

const base = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const next = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n';

describe('what add does to one file', () => {
  it('adds a new file, and leaves a file the add does not change alone', () => {
    expect(planFile('a.ts', undefined, undefined, next, undefined, true)).toMatchObject({ kind: 'added', content: next });
    expect(planFile('a.ts', 'edited', base, base, contentHash(base), true)).toBeUndefined();
  });

  it('rewrites a file the user never changed', () => {
    expect(planFile('a.ts', base, base, next, contentHash(base), true)).toMatchObject({ kind: 'rewritten', content: next });
  });

  it('merges an edit away from the changed lines', () => {
    const mine = base.replace('one', 'ONE (mine)');
    const change = planFile('a.ts', mine, base, next, contentHash(base), true);
    expect(change).toMatchObject({ kind: 'merged' });
    expect(change!.content).toBe(next.replace('one', 'ONE (mine)'));
  });

  it('reports an overlapping edit as a conflict: the proposal carries the markers, the action names the line', () => {
    const mine = base.replace('seven\n', 'seven (mine)\n');
    const changed = base.replace('seven\n', 'seven (new)\n');
    const change = planFile('src/a.ts', mine, base, changed, contentHash(base), true)!;
    expect(change.kind).toBe('conflict');
    expect(change.proposalFile).toBe('src/a.ts.gatekit-new');
    expect(change.content).toContain('<<<<<<< your version\nseven (mine)\n=======\nseven (new)\n>>>>>>> create-gatekit add');
    expect(change.action).toBe('resolve the conflict markers at line 7 of src/a.ts.gatekit-new, then move it over src/a.ts');
  });

  it('keeps lines both sides inserted at one point, and lines one side inserted beside a line the other changed', () => {
    // Before 4.1 each of these was a conflict.
    const mine = base.replace('seven\n', 'seven\nmine\n');
    expect(planFile('a.ts', mine, base, next, contentHash(base), true)).toMatchObject({ kind: 'merged', content: base.replace('seven\n', 'seven\nmine\neight\n') });
    const changedSeven = base.replace('seven\n', 'seven (mine)\n');
    expect(planFile('a.ts', changedSeven, base, next, contentHash(base), true)).toMatchObject({ kind: 'merged', content: next.replace('seven\n', 'seven (mine)\n') });
  });

  it('never merges against a base it cannot trust (made by another generator version)', () => {
    const mine = base.replace('one', 'ONE');
    const change = planFile('a.ts', mine, base, next, contentHash('something else'), true)!;
    expect(change.kind).toBe('conflict');
    expect(change.content).toBe(next);
  });

  it('proposes, never restores, a generated file the user deleted', () => {
    expect(planFile('a.ts', undefined, base, next, contentHash(base), true)).toMatchObject({ kind: 'conflict', proposalFile: 'a.ts.gatekit-new' });
  });
});

describe('package.json and .env', () => {
  it('adds the new packages and scripts, keeps the user\'s own entries and changes', () => {
    const old = JSON.stringify({ name: 'a', scripts: { dev: 'tsx' }, dependencies: { express: '^5.0.0' } }, null, 2);
    const fresh = JSON.stringify({ name: 'a', scripts: { dev: 'tsx', lint: 'eslint' }, dependencies: { express: '^5.0.0', 'openid-client': '^6.0.0' } }, null, 2);
    const mine = JSON.stringify({ name: 'a', scripts: { dev: 'tsx --inspect' }, dependencies: { express: '^5.1.0', lodash: '^4.0.0' } }, null, 2);
    const merged = JSON.parse(mergePackageJson(mine, old, fresh)!.content);
    expect(merged.scripts).toEqual({ dev: 'tsx --inspect', lint: 'eslint' });
    expect(merged.dependencies).toEqual({ express: '^5.1.0', lodash: '^4.0.0', 'openid-client': '^6.0.0' });
  });

  it('appends only missing variables to .env, secrets generated, values the user set untouched', () => {
    const totp = registry.modules.get('totp')!;
    const current = 'JWT_SECRET=abc\nTOTP_ISSUER=Mine\n';
    const result = appendMissingEnv(current, [totp], 'sqlite')!;
    expect(result.content.startsWith(current)).toBe(true);
    expect(result.names).not.toContain('TOTP_ISSUER');
    expect(result.content.match(/^TOTP_ISSUER=/gm)).toHaveLength(1);
  });
});

describe('planning an add', () => {
  it('plans orgs and github for a jwt app: new files, rewritten ones, one migration, the command', () => {
    const dir = appWith({ auth: ['jwt'], toggles: { orgs: false, pages: false } });
    const before = readFileSync(path.join(dir, 'src/app.ts'), 'utf8');
    const plan = planAdd({ appDir: dir, ids: ['orgs', 'github'], registry });
    expect(plan.requested).toEqual(['orgs', 'github']);
    expect(plan.added.map((module) => module.manifest.id)).toEqual(['identities', 'oauth', 'github', 'orgs']);
    const kinds = Object.fromEntries(plan.changes.map((change) => [change.file, change.kind]));
    expect(kinds['src/modules/organizations/organizations.routes.ts']).toBe('added');
    expect(kinds['src/app.ts']).toBe('rewritten');
    expect(plan.migration!.file).toMatch(/^prisma\/migrations\/\d{14}_add_identities_orgs\/migration\.sql$/);
    expect(JSON.parse(plan.changes.find((change) => change.file === 'gatekit.json')!.content).command).toContain('--oauth github --orgs');
    expect(readFileSync(path.join(dir, 'src/app.ts'), 'utf8')).toBe(before);
  });

  it('adds a pack module to an app made without packs, merging the user\'s README edit (the pack is not in the old render)', () => {
    const dir = appWith({ auth: ['jwt'], toggles: { orgs: false, pages: false } });
    const readme = path.join(dir, 'README.md');
    writeFileSync(readme, `${readFileSync(readme, 'utf8')}\nOur own notes.\n`);
    const pack = resolvePack(path.join(ROOT, 'examples/packs/audit-log'), [ROOT]);
    const withPack = createRegistry([...loadBuiltinModules(), ...loadPack(pack)], [pack.ref]);
    const plan = planAdd({ appDir: dir, ids: ['audit-log'], registry: withPack });
    const readmeChange = plan.changes.find((change) => change.file === 'README.md')!;
    expect(readmeChange.kind).toBe('merged');
    expect(readmeChange.content).toContain('Our own notes.');
    expect(readmeChange.content).toContain('## Audit log');
    expect(JSON.parse(plan.changes.find((change) => change.file === 'gatekit.json')!.content).packs).toEqual([pack.ref]);
  });

  it('records only the packs whose modules the app uses', () => {
    const pack = resolvePack(path.join(ROOT, 'examples/packs/audit-log'), [ROOT]);
    const withPack = createRegistry([...loadBuiltinModules(), ...loadPack(pack)], [pack.ref]);
    const project = generateProject({ projectName: 'no-pack-modules', choices: mergeChoices({ auth: ['jwt'] }, { pm: 'npm' }), registry: withPack });
    const metadata = JSON.parse(project.tree.get('gatekit.json')!);
    expect(metadata.packs).toBeUndefined();
    expect(metadata.command).not.toContain('--pack');
  });

  it('names the new migration after every existing one, even when the clock is behind', () => {
    const dir = appWith({ auth: ['jwt'], toggles: { orgs: false, pages: false } });
    const plan = planAdd({ appDir: dir, ids: ['totp'], registry, now: new Date('2020-01-01T00:00:00Z') });
    expect(plan.migration!.file).toMatch(/^prisma\/migrations\/20260101000002_add_totp\//);
  });

  it('refuses unknown ids, ids already there, and modules newer than the app\'s template version, naming the valid ones', () => {
    const dir = appWith({ auth: ['jwt'], toggles: { orgs: false, pages: false } });
    expect(() => planAdd({ appDir: dir, ids: ['gitub'], registry })).toThrow(UsageError);
    expect(() => planAdd({ appDir: dir, ids: ['gitub'], registry })).toThrow(/Unknown module 'gitub'. Did you mean 'github'\?.*Modules this app can add: .*github/);
    expect(() => planAdd({ appDir: dir, ids: ['jwt'], registry })).toThrow(/jwt is already in this app/);
    expect(planAdd({ appDir: dir, ids: ['jwt', 'totp'], registry })).toMatchObject({ requested: ['totp'], alreadyThere: ['jwt'] });
    expect(() => planAdd({ appDir: dir, ids: ['oauth'], registry })).toThrow(/Unknown module 'oauth'/);
    const old = appWith({ auth: ['jwt'], templateVersion: '2.0' });
    expect(() => planAdd({ appDir: old, ids: ['orgs'], registry })).toThrow(/'orgs' first shipped in release 3.0, but this app was made with template version 2.0/);
  });

  it('refuses an app made by a version whose templates differ, naming the files and the version to use, and writes nothing', () => {
    const dir = appWith({ auth: ['jwt'] });
    // What an older generator wrote: a shared file it never edited, recorded under its own hash.
    const file = 'src/context.ts';
    const older = readFileSync(path.join(dir, file), 'utf8').replace(/^.*mailer: Mailer;\n/m, '');
    writeFileSync(path.join(dir, file), older);
    const metadataFile = path.join(dir, 'gatekit.json');
    const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
    metadata.generator.version = '3.2.0';
    metadata.files[file] = contentHash(older);
    writeFileSync(metadataFile, JSON.stringify(metadata, null, 2));
    const before = readFileSync(path.join(dir, 'src/app.ts'), 'utf8');

    const error = (() => {
      try {
        planAdd({ appDir: dir, ids: ['magic-link'], registry });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('made by create-gatekit 3.2.0');
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain('npx create-gatekit@3.2.0 add magic-link');
    expect(readFileSync(path.join(dir, 'src/app.ts'), 'utf8')).toBe(before);

    // A file the user edited is theirs, whatever the version: it alone never stops an add.
    writeFileSync(path.join(dir, file), `${older}// mine\n`);
    expect(planAdd({ appDir: dir, ids: ['magic-link'], registry }).added.map((module) => module.manifest.id)).toContain('magic-link');
  });

  it('plans from the choices gatekit.json records, never from its command', () => {
    const dir = appWith({ auth: ['jwt'], oauth: ['github'], toggles: { orgs: false } }, 'recorded-app');
    const metadataFile = path.join(dir, 'gatekit.json');
    const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
    expect(metadata.projectName).toBe('recorded-app');
    expect(metadata.choices).toEqual({ auth: ['jwt'], oauth: ['github'], hosted: [], modules: [], toggles: { orgs: false, pages: true } });
    const expected = planAdd({ appDir: dir, ids: ['magic-link'], registry }).changes;
    metadata.command = 'npx create-gatekit something-else --yes --auth totp';
    writeFileSync(metadataFile, JSON.stringify(metadata, null, 2));
    expect(planAdd({ appDir: dir, ids: ['magic-link'], registry }).changes).toEqual(expected);
  });

  it('reads a gatekit.json written by 3.7 (no projectName, no choices): the same plan as from the recorded choices', () => {
    const dir = appWith({ auth: ['jwt'], oauth: ['github', 'google'], hosted: ['totp'], toggles: { orgs: true } }, 'made-by-3-7');
    const metadataFile = path.join(dir, 'gatekit.json');
    const current = JSON.parse(readFileSync(metadataFile, 'utf8'));
    const expected = planAdd({ appDir: dir, ids: ['magic-link'], registry });
    // gatekit.json as 3.7 wrote it: the same keys, less the two recorded since.
    const { projectName: _name, choices: _choices, ...old } = current;
    writeFileSync(metadataFile, JSON.stringify({ ...old, generator: { name: 'create-gatekit', version: '3.7.0' } }, null, 2));
    const plan = planAdd({ appDir: dir, ids: ['magic-link'], registry });
    expect(plan.choices).toEqual(expected.choices);
    expect(plan.changes.map((change) => [change.file, change.kind])).toEqual(expected.changes.map((change) => [change.file, change.kind]));
    const written = JSON.parse(plan.changes.find((change) => change.file === 'gatekit.json')!.content);
    expect(written.projectName).toBe('made-by-3-7');
    expect(written.choices).toEqual({ auth: ['jwt', 'magic-link'], oauth: ['github', 'google'], hosted: ['totp'], modules: [], toggles: { orgs: true, pages: true } });
  });

  it("names the OAuth callback URL under the app's API_URL, else under its PORT", () => {
    const dir = appWith({ auth: ['jwt'] });
    const envFile = path.join(dir, '.env');
    const env = readFileSync(envFile, 'utf8');
    writeFileSync(envFile, env.replace(/^PORT=.*$/m, 'PORT=4100'));
    expect(planAdd({ appDir: dir, ids: ['github'], registry }).notes.join('\n')).toContain('callback URL http://localhost:4100/api/auth/github/callback');
    writeFileSync(envFile, env.replace(/^API_URL=.*$/m, 'API_URL="https://auth.example.com"'));
    expect(planAdd({ appDir: dir, ids: ['github'], registry }).notes.join('\n')).toContain('callback URL https://auth.example.com/api/auth/github/callback');
  });

  it('explains a folder without gatekit.json', () => {
    expect(() => planAdd({ appDir: work, ids: ['orgs'], registry })).toThrow(/No gatekit.json in .*--cwd/);
  });
});

describe('writing the changes', () => {
  it('puts every file back when a write fails part-way', () => {
    const dir = path.join(work, 'rollback');
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'src/app.ts'), 'original');
    const writes: [string, string][] = [
      ['src/app.ts', 'changed'],
      ['src/new/deep/file.ts', 'new'],
      ['src/app.ts/inside-a-file.ts', 'cannot be written: its folder is a file'],
    ];
    expect(() => applyChanges(dir, writes)).toThrow(StepError);
    expect(readFileSync(path.join(dir, 'src/app.ts'), 'utf8')).toBe('original');
    expect(existsSync(path.join(dir, 'src/new'))).toBe(false);
  });

  it('rolls back on request after a later step failed', () => {
    const dir = path.join(work, 'later');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package-lock.json'), 'lock');
    const applied = applyChanges(dir, [['a.txt', 'a']]);
    writeFileSync(path.join(dir, 'package-lock.json'), 'changed by npm install');
    applied.rollback();
    expect(existsSync(path.join(dir, 'a.txt'))).toBe(false);
    expect(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).toBe('lock');
  });
});
