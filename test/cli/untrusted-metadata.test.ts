import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/run-cli.js';

// gatekit.json is input like any other file of a cloned app (CONTRACT A.5; issue 31, item 6).
// Before: a "files" key '../../../../../dev/zero' made add read /dev/zero until it ran out of
// memory (4.2 GB, then a hang); a FIFO hung it; a folder was a stack trace; an absolute path was
// silently skipped.
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-metadata-'));

/**
 * `create-gatekit add` as a hostile app would meet it, with at most 1.5 GB of address space and
 * 30 seconds, so a read without end fails the test instead of eating the machine or hanging.
 */
function addIn(dir: string, extra: string[]) {
  const result = spawnSync('sh', ['-c', 'ulimit -v 1500000 && exec "$@"', 'sh', process.execPath, BIN, 'add', 'totp', '--cwd', dir, ...extra], {
    env: { ...process.env, CI: 'true' },
    input: '',
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, signal: result.signal, stderr: result.stderr };
}

const base = path.join(work, 'base');
function app(name: string, change: (dir: string) => void): string {
  if (!existsSync(base)) {
    const result = runCli([base, '--yes', '--no-install', '--no-git', '--auth', 'jwt', '--no-orgs', '--no-pages']);
    expect(result.status, result.stderr).toBe(0);
  }
  const dir = path.join(work, name);
  cpSync(base, dir, { recursive: true });
  change(dir);
  return dir;
}

const metadataOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8'));
function editMetadata(dir: string, edit: (metadata: Record<string, unknown> & { files: Record<string, string> }) => void): void {
  const metadata = metadataOf(dir);
  edit(metadata);
  writeFileSync(path.join(dir, 'gatekit.json'), JSON.stringify(metadata, null, 2));
}
const recordFile = (name: string) => (dir: string) => editMetadata(dir, (metadata) => (metadata.files[name] = '0123456789abcdef'));
/** An app whose `file` is a symbolic link to /dev/zero (out of the app, and without end), named in gatekit.json's files when `recorded`. */
const withZeroLink = (name: string, file: string, recorded = false) =>
  app(name, (dir) => {
    rmSync(path.join(dir, file), { force: true });
    symlinkSync('/dev/zero', path.join(dir, file));
    if (recorded) recordFile(file)(dir);
  });
const leadsOut = /is a symbolic link to \/dev\/zero, which is outside/;

/** Every entry under `dir` (links as their target, folders and other kinds by kind), to prove nothing changed. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => {
      const stat = lstatSync(path.join(dir, file));
      if (stat.isSymbolicLink()) return [file, `-> ${readlinkSync(path.join(dir, file))}`];
      return [file, stat.isFile() ? readFileSync(path.join(dir, file), 'utf8') : stat.isDirectory() ? 'folder' : 'other'];
    }),
  );
}

function expectRefused(dir: string, named: string, reason: string | RegExp): void {
  const before = contents(dir);
  for (const extra of [['--dry-run'], ['--no-install']]) {
    const result = addIn(dir, extra);
    expect([result.status, result.signal], `${extra.join(' ')}: ${result.stderr}`).toEqual([2, null]);
    expect(result.stderr).toContain(named);
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(contents(dir)).toEqual(before);
  }
}

describe('add reads only regular files inside the app: a hostile gatekit.json or app folder is refused (exit 2, naming it)', () => {
  it("a files entry with '..' (the /dev/zero of the attack) or an absolute path", () => {
    const outward = '../../../../../dev/zero';
    expectRefused(app('dotdot', recordFile(outward)), `'${outward}'`, /gatekit\.json is not a Gatekit metadata file \(files: names '\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/dev\/zero', which leaves the app with '\.\.'\)/);
    expectRefused(app('absolute', recordFile('/etc/passwd')), "'/etc/passwd'", /files: names '\/etc\/passwd', which is absolute/);
  }, 120_000);

  it('a files entry naming a folder, a FIFO or a symbolic link out of the app', () => {
    expectRefused(app('folder', recordFile('src')), path.join(work, 'folder', 'src'), /is a folder, not a regular file/);
    const fifo = app('fifo', (dir) => {
      expect(spawnSync('mkfifo', [path.join(dir, 'notes')]).status).toBe(0);
      recordFile('notes')(dir);
    });
    expectRefused(fifo, path.join(fifo, 'notes'), /is a FIFO \(named pipe\), not a regular file/);
    const linked = withZeroLink('linked', 'zero', true);
    expectRefused(linked, path.join(linked, 'zero'), leadsOut);
  }, 120_000);

  it('a file the add only reads (one it does not change) that is a link out of the app', () => {
    const dir = withZeroLink('read-only-link', 'tsconfig.json');
    expectRefused(dir, path.join(dir, 'tsconfig.json'), leadsOut);
  }, 120_000);

  it('gatekit.json itself must be a regular file inside the app', () => {
    const linked = withZeroLink('metadata-link', 'gatekit.json');
    expectRefused(linked, path.join(linked, 'gatekit.json'), leadsOut);
    const folder = app('metadata-folder', (dir) => {
      rmSync(path.join(dir, 'gatekit.json'));
      mkdirSync(path.join(dir, 'gatekit.json'));
    });
    expectRefused(folder, path.join(folder, 'gatekit.json'), /is a folder, not a regular file/);
  }, 120_000);

  it('a malformed gatekit.json: exit 2 with the reason', () => {
    const cases: [string, (dir: string) => void, RegExp][] = [
      ['not-json', (dir) => writeFileSync(path.join(dir, 'gatekit.json'), '{ "generator": '), /gatekit\.json is not valid JSON: /],
      ['not-object', (dir) => writeFileSync(path.join(dir, 'gatekit.json'), '[]'), /gatekit\.json is not a Gatekit metadata file \(Invalid input: expected object, received array\)/],
      ['files-array', (dir) => editMetadata(dir, (metadata) => (metadata.files = ['src/app.ts'] as never)), /files: Invalid input: expected record, received array/],
      ['bad-version', (dir) => editMetadata(dir, (metadata) => (metadata.templateVersion = 'banana')), /templateVersion: 'banana' is not a release \(X\.Y\)/],
      ['bad-name', (dir) => editMetadata(dir, (metadata) => (metadata.projectName = '../Evil')), /projectName: '\.\.\/Evil' cannot be an npm package name/],
    ];
    for (const [name, change, reason] of cases) expectRefused(app(name, change), path.join(work, name, 'gatekit.json'), reason);
  }, 180_000);
});
