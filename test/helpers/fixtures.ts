import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mergeChoices, readConfigFile } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';
import { childEnv } from './app-process.js';
import { ROOT, runCli } from './run-cli.js';

export const FIXTURES_DIR = path.join(ROOT, 'fixtures');
export const WORK_DIR = path.join(ROOT, 'test/tmp');

export function fixtureNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.replace(/\.json$/, ''))
    .sort();
}

export function fixtureChoices(name: string) {
  return mergeChoices(readConfigFile(path.join(FIXTURES_DIR, `${name}.json`)), { pm: 'npm' });
}

/** Renders a fixture in memory with a fixed clock (for snapshots). */
export function renderFixture(name: string) {
  return generateProject({
    projectName: `fixture-${name}`,
    choices: fixtureChoices(name),
    registry: createRegistry(loadBuiltinModules()),
    now: new Date('2026-01-01T00:00:00Z'),
  });
}

function run(command: string, args: string[], options: SpawnSyncOptions & { step: string }): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 900_000, ...options });
  if (result.status !== 0) {
    throw new Error(`${options.step} failed (exit ${result.status}):\n${String(result.stdout ?? '').slice(-3000)}\n${String(result.stderr ?? '').slice(-3000)}`);
  }
  return String(result.stdout);
}

/**
 * One real install per distinct dependency set: fixtures whose package.json declares the same
 * packages start from a hard-linked copy of the first one's node_modules, then still run a real
 * `npm install` (which checks the tree and generates their own Prisma client).
 */
function sharedInstallDir(projectDir: string): string {
  const pkg = JSON.parse(readFileSync(path.join(projectDir, 'package.json'), 'utf8'));
  const key = createHash('sha256').update(JSON.stringify([pkg.dependencies, pkg.devDependencies])).digest('hex').slice(0, 16);
  return path.join(WORK_DIR, `.installed-${key}`);
}

function linkTree(from: string, to: string): void {
  const result = spawnSync('cp', ['-al', from, to]);
  if (result.status !== 0) throw new Error(`cp -al ${from} ${to} failed: ${result.stderr}`);
}

export interface PreparedFixture {
  name: string;
  dir: string;
  env: Record<string, string>;
  run(script: string, env?: Record<string, string>): string;
}

/**
 * Generates a fixture with the real CLI into test/tmp/<name>, runs a real `npm install` (which
 * generates the Prisma client offline), builds it, and applies its migrations to `databaseUrl`.
 * node_modules is kept between local runs while package.json is unchanged; CI starts clean.
 */
export function prepareFixture(name: string, databaseUrl?: string): PreparedFixture {
  const dir = path.join(WORK_DIR, name);
  const modulesCache = path.join(WORK_DIR, `.node_modules-${name}`);
  const stamp = (file: string) => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : '');
  if (existsSync(path.join(dir, 'node_modules'))) {
    rmSync(modulesCache, { recursive: true, force: true });
    renameSync(path.join(dir, 'node_modules'), modulesCache);
    writeFileSync(`${modulesCache}.stamp`, stamp(path.join(dir, 'package.json')));
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(WORK_DIR, { recursive: true });
  const env: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
  const generated = runCli([dir, '--config', path.join(FIXTURES_DIR, `${name}.json`), '--yes', '--no-install', '--no-git', '--pm', 'npm'], { env });
  if (generated.status !== 0) throw new Error(`generating ${name} failed:\n${generated.stderr}`);

  const cacheFits = existsSync(modulesCache) && readFileSync(`${modulesCache}.stamp`, 'utf8') === stamp(path.join(dir, 'package.json'));
  if (cacheFits) renameSync(modulesCache, path.join(dir, 'node_modules'));
  const shared = sharedInstallDir(dir);
  if (!cacheFits && existsSync(shared)) linkTree(shared, path.join(dir, 'node_modules'));
  const npm = (args: string[], step: string, extraEnv: Record<string, string> = {}) =>
    run('npm', args, { cwd: dir, env: childEnv({ ...env, ...extraEnv }), step: `${name}: ${step}` });
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], 'npm install');
  if (!existsSync(shared)) {
    const partial = `${shared}.partial-${process.pid}`;
    linkTree(path.join(dir, 'node_modules'), partial);
    try {
      renameSync(partial, shared);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another worker got there first
    }
  }
  npm(['run', 'build'], 'npm run build');
  npm(['run', 'db:migrate'], 'npm run db:migrate');
  return {
    name,
    dir,
    env,
    run: (script, extraEnv = {}) => npm(['run', script], `npm run ${script}`, extraEnv),
  };
}
