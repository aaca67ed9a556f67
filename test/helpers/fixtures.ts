import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFile, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mergeChoices, readConfigFile } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { flaggedModules } from '../../src/core/choosable-modules.js';
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
  const flagIds = flaggedModules(createRegistry(loadBuiltinModules())).map((module) => module.manifest.id);
  return mergeChoices(readConfigFile(path.join(FIXTURES_DIR, `${name}.json`), flagIds), { pm: 'npm' });
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
 * `npm <args>` in an app folder without blocking the test's event loop, for a command run between
 * requests to a running app: while spawnSync blocks, the test never hears the app close an idle keep-alive
 * connection (after 5 s), and its next request goes out on that closed socket ("other side closed").
 */
export function npmAsync(dir: string, args: string[], env: Record<string, string>, step: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd: dir, env: childEnv(env), encoding: 'utf8', timeout: 900_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${step} failed (exit ${error.code}):\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`));
      else resolve(stdout);
    });
  });
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
  /** The same as `run`, for a script run while the test talks to a running app (see npmAsync). */
  runAsync(script: string, env?: Record<string, string>): Promise<string>;
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
    runAsync: (script, extraEnv = {}) => npmAsync(dir, ['run', script], { ...env, ...extraEnv }, `${name}: npm run ${script}`),
  };
}

const PREPARED_MARKER = '.gatekit-prepared';
const FAILED_MARKER = '.gatekit-failed';

/** Fixture handles for a folder another test file prepared. */
function preparedHandle(name: string, env: Record<string, string>): PreparedFixture {
  const dir = path.join(WORK_DIR, name);
  return {
    name,
    dir,
    env,
    run: (script, extraEnv = {}) => run('npm', ['run', script], { cwd: dir, env: childEnv({ ...env, ...extraEnv }), step: `${name}: npm run ${script}` }),
    runAsync: (script, extraEnv = {}) => npmAsync(dir, ['run', script], { ...env, ...extraEnv }, `${name}: npm run ${script}`),
  };
}

/**
 * One generated, installed and built fixture shared by every test file that asks for it in this
 * run: the first caller prepares it (as prepareFixture does) while the others wait on a lock
 * folder, then all use the same folder, each with a database of its own. The global setup clears
 * the markers, so every run starts from a fresh generation.
 */
export async function sharedFixture(name: string, databaseUrl?: string): Promise<PreparedFixture> {
  mkdirSync(WORK_DIR, { recursive: true });
  const lock = path.join(WORK_DIR, `${name}.lock`);
  const marker = (file: string) => path.join(WORK_DIR, `${name}${file}`);
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    if (existsSync(marker(PREPARED_MARKER))) return preparedHandle(name, databaseUrl ? { DATABASE_URL: databaseUrl } : {});
    if (existsSync(marker(FAILED_MARKER))) throw new Error(`preparing ${name} failed in another test file:\n${readFileSync(marker(FAILED_MARKER), 'utf8')}`);
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${name} to be prepared`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    try {
      const fixture = prepareFixture(name, databaseUrl);
      writeFileSync(marker(PREPARED_MARKER), new Date().toISOString());
      return fixture;
    } catch (error) {
      writeFileSync(marker(FAILED_MARKER), String((error as Error).message));
      throw error;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Removes the markers of an earlier run (called once by the global setup). */
export function clearSharedFixtureMarkers(): void {
  if (!existsSync(WORK_DIR)) return;
  for (const file of readdirSync(WORK_DIR)) {
    if (file.endsWith(PREPARED_MARKER) || file.endsWith(FAILED_MARKER) || file.endsWith('.lock')) {
      rmSync(path.join(WORK_DIR, file), { recursive: true, force: true });
    }
  }
}

/** A copy of the fixture's migrated dev.db, so each suite has a database of its own. */
export function copyOfDevDatabase(fixture: PreparedFixture, name: string): string {
  const file = path.join(fixture.dir, `${name}-${process.pid}-${Date.now()}.db`);
  copyFileSync(path.join(fixture.dir, 'dev.db'), file);
  return `file:${file}`;
}
