// bench/cases/install: how long a new user waits, on a warm npm cache.
//
//   npm install                 a freshly generated full app, first install (no lockfile) on a warm
//                               cache: --prefer-offline, and --offline (from the npm cache alone,
//                               no registry, no compiler: proves the install needs neither).
//   README's first command      `npm install && node bin/create-gatekit.js ../my-app --yes --config
//                               fixtures/full.json && cd ../my-app && npm run dev`, to the first 200
//                               from /healthz, in a checkout whose node_modules is installed (warm):
//                               the generator's `npm install` is then its `prepare` build (timed as
//                               `npm run build`), then generate, install, migrate, git commit, then
//                               `npm run dev`. Target: under 60 s.
//
// Same run baseline: `npm install --prefer-offline` of an app with only express, the Prisma client,
// its SQLite adapter and driver, with the app's overrides (what any Express + Prisma starter
// installs), so the figure says what the auth modules add on top, on this machine, now.
//
// Environment: BENCH_INSTALL_FIXTURE (default full).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const FIXTURE = process.env.BENCH_INSTALL_FIXTURE ?? 'full';
export const TARGETS = { readmeFirstCommandSeconds: 60 };
/** What any Express + Prisma starter on SQLite installs. */
const BASELINE = ['express', '@prisma/client', '@prisma/adapter-libsql', '@libsql/client'];

function timed(command, args, options) {
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  return { ok: result.status === 0, seconds: Math.round((performance.now() - started) / 100) / 10, output: `${result.stdout}\n${result.stderr}` };
}

function mustSucceed(step, what) {
  if (!step.ok) throw new Error(`${what} failed:\n${step.output.slice(-4000)}`);
  return step;
}

const installArgs = (mode) => ['install', mode, '--no-audit', '--no-fund'];

const fresh = (dir) => {
  rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  rmSync(path.join(dir, 'package-lock.json'), { force: true });
};

/**
 * A first install in dir (no lockfile, no node_modules) on a warm cache: one untimed install
 * fills the cache, then the timed one with --prefer-offline (what a user with that cache gets),
 * and, when offline is asked for, one with --offline (the registry is never asked).
 */
function warmInstall(dir, { offline }) {
  mustSucceed(timed('npm', installArgs('--prefer-offline'), { cwd: dir }), `warming the npm cache in ${dir}`);
  fresh(dir);
  const preferOffline = mustSucceed(timed('npm', installArgs('--prefer-offline'), { cwd: dir }), `npm install in ${dir}`);
  if (!offline) return { preferOfflineSeconds: preferOffline.seconds };
  fresh(dir);
  const onlyCache = mustSucceed(timed('npm', installArgs('--offline'), { cwd: dir }), `npm install --offline in ${dir}`);
  return { preferOfflineSeconds: preferOffline.seconds, offlineSeconds: onlyCache.seconds };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `npm run dev` in dir until /healthz answers 200; returns the seconds it took, then stops it. */
async function devServerUp(dir, port) {
  const started = performance.now();
  const child = spawn('npm', ['run', 'dev'], { cwd: dir, detached: true, stdio: 'ignore', env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' } });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm run dev exited ${child.exitCode}`);
      if (performance.now() - started > 120_000) throw new Error('npm run dev did not answer /healthz within 120 s');
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return Math.round((performance.now() - started) / 100) / 10;
  } finally {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

export async function run({ root }) {
  const prepare = mustSucceed(timed('npm', ['run', 'build'], { cwd: root }), 'building the generator');
  const work = mkdtempSync(path.join(tmpdir(), 'gatekit-bench-install-'));
  const env = { ...process.env, CI: 'true' };
  const cli = path.join(root, 'bin/create-gatekit.js');
  const config = path.join(root, 'fixtures', `${FIXTURE}.json`);
  try {
    // A generated app, installed from the cache alone.
    const offlineApp = path.join(work, 'offline-app');
    mustSucceed(timed(process.execPath, [cli, offlineApp, '--config', config, '--yes', '--no-install', '--no-git', '--pm', 'npm'], { cwd: root, env }), 'generating the app');
    const app = warmInstall(offlineApp, { offline: true });
    const packages = JSON.parse(readFileSync(path.join(offlineApp, 'package.json'), 'utf8'));

    // The baseline: express and Prisma with the same SQLite adapter and driver, the same versions.
    const baselineDir = path.join(work, 'baseline');
    const pick = (names) => Object.fromEntries(names.map((name) => [name, packages.dependencies[name] ?? packages.devDependencies[name]]));
    mkdirSync(baselineDir, { recursive: true });
    writeFileSync(
      path.join(baselineDir, 'package.json'),
      JSON.stringify({ name: 'baseline', private: true, dependencies: pick(BASELINE), devDependencies: pick(['prisma']), ...(packages.overrides ? { overrides: packages.overrides } : {}) }, null, 2),
    );
    const baseline = warmInstall(baselineDir, { offline: false });

    // The README's first command, as a user runs it (its install is npm's own default).
    const readmeApp = path.join(work, 'my-app');
    const generated = mustSucceed(timed(process.execPath, [cli, readmeApp, '--yes', '--config', config], { cwd: root, env }), "the README's first command");
    const devSeconds = await devServerUp(readmeApp, await freePort());
    const total = Math.round((prepare.seconds + generated.seconds + devSeconds) * 10) / 10;
    return {
      fixture: FIXTURE,
      node: process.version,
      install: {
        gatekitSeconds: app.preferOfflineSeconds,
        gatekitOfflineSeconds: app.offlineSeconds,
        baselineSeconds: baseline.preferOfflineSeconds,
        ratio: Math.round((app.preferOfflineSeconds / baseline.preferOfflineSeconds) * 100) / 100,
        dependencies: Object.keys(packages.dependencies).length,
        devDependencies: Object.keys(packages.devDependencies).length,
        baseline: `${[...BASELINE, 'prisma'].join(', ')}: the versions (and overrides) the app uses`,
      },
      readmeFirstCommand: {
        generatorPrepareSeconds: prepare.seconds,
        generateInstallMigrateCommitSeconds: generated.seconds,
        devServerToFirst200Seconds: devSeconds,
        totalSeconds: total,
        target: `< ${TARGETS.readmeFirstCommandSeconds} s`,
        pass: total < TARGETS.readmeFirstCommandSeconds,
      },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function format(result) {
  const { install, readmeFirstCommand: readme } = result;
  return [
    `install (${result.fixture} fixture, first install without a lockfile, npm cache warmed by this run)`,
    `  npm install --prefer-offline  gatekit ${install.gatekitSeconds} s (${install.dependencies} dependencies, ${install.devDependencies} dev)   baseline ${install.baselineSeconds} s   ratio ${install.ratio}x`,
    `  npm install --offline         gatekit ${install.gatekitOfflineSeconds} s (the registry never asked; no compiler)`,
    `  ${readme.pass ? 'PASS' : 'FAIL'}  README's first command  ${readme.totalSeconds} s (target ${readme.target}) = the generator's npm install in an installed checkout (its prepare build) ${readme.generatorPrepareSeconds} s + generate, install, migrate, commit ${readme.generateInstallMigrateCommitSeconds} s + npm run dev to first 200 ${readme.devServerToFirst200Seconds} s`,
  ];
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  run({ root }).then(
    (result) => {
      console.log(format(result).join('\n'));
      console.log(JSON.stringify(result, null, 2));
    },
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
