// The programs bench/cases/http.mjs compares: the generated app for one database, and
// bench/peer (the Better Auth peer, the bare Express apps), each installed and built before a run.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sh, versionOf } from './servers.mjs';

/** The generator's fixture every benchmark generates: every module this release offers. */
export const FIXTURE = 'full';

/** bench/peer/node_modules, installed from its committed lockfile when missing or out of date. */
export function preparePeer(root) {
  const dir = path.join(root, 'bench/peer');
  const lock = readFileSync(path.join(dir, 'package-lock.json'));
  const stamp = path.join(dir, 'node_modules/.bench-lock-sha256');
  const sha = createHash('sha256').update(lock).digest('hex');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== sha) {
    console.error('bench/http: installing bench/peer (npm ci; better-sqlite3 may compile from source, a minute or two)');
    sh('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir });
    writeFileSync(stamp, sha);
  }
  return {
    dir,
    versions: Object.fromEntries(['better-auth', 'kysely', 'better-sqlite3', 'pg', 'express', 'helmet'].map((name) => [name, versionOf(dir, name)])),
  };
}

/**
 * The generated app for `db` ('sqlite' or 'postgresql'): fixtures/full.json, with its database
 * switched for PostgreSQL. Regenerated from the current templates on every run in
 * bench/tmp/http-app (SQLite) or bench/tmp/http-app-postgresql (node_modules kept between runs, so
 * npm install only catches up), installed, built.
 * `without` leaves modules out (bench/tmp/http-app-no-audit…), for a figure with and without one.
 * BENCH_HTTP_APP (SQLite) and BENCH_HTTP_APP_POSTGRESQL name an app already generated, installed
 * and built instead (the full app only).
 */
export function prepareApp(root, db = 'sqlite', { without = [] } = {}) {
  const prepared = without.length === 0 && (db === 'sqlite' ? process.env.BENCH_HTTP_APP : process.env.BENCH_HTTP_APP_POSTGRESQL);
  if (prepared) return { dir: path.resolve(prepared), regenerated: false, fixture: FIXTURE, db };
  const tmp = path.join(root, 'bench/tmp');
  const name = ['http-app', ...without.map((id) => `no-${id}`), ...(db === 'sqlite' ? [] : [db])].join('-');
  const dir = path.join(tmp, name);
  // One generation per app and run: the http and audit cases share the full app.
  if (preparedThisRun.has(dir)) return preparedThisRun.get(dir);
  let config = path.join(root, 'fixtures', `${FIXTURE}.json`);
  if (db !== 'sqlite' || without.length > 0) {
    mkdirSync(tmp, { recursive: true });
    const fixture = JSON.parse(readFileSync(config, 'utf8'));
    config = path.join(tmp, `${name}.json`);
    writeFileSync(config, JSON.stringify({ ...fixture, db, modules: (fixture.modules ?? []).filter((id) => !without.includes(id)) }, null, 2));
  }
  sh('npm', ['run', 'build'], { cwd: root });
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(dir)) if (entry !== 'node_modules') rmSync(path.join(dir, entry), { recursive: true, force: true });
  sh(process.execPath, ['bin/create-gatekit.js', dir, '--config', config, '--yes', '--no-install', '--no-git', '--pm', 'npm', '--force'], {
    cwd: root,
    env: { ...process.env, CI: 'true' },
  });
  // The generated development .env would fill in whatever the benchmark leaves unset.
  rmSync(path.join(dir, '.env'), { force: true });
  console.error(`bench/http: npm install in the generated ${db} app`);
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir });
  sh('npm', ['run', 'build'], { cwd: dir });
  const app = { dir, regenerated: true, fixture: without.length ? `${FIXTURE} without ${without.join(', ')}` : FIXTURE, db };
  preparedThisRun.set(dir, app);
  return app;
}

const preparedThisRun = new Map();
