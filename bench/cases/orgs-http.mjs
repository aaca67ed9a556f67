// Throughput of the orgs module's list routes on a generated app (orgs-sqlite fixture), next to
// /healthz on the same server in the same run, so the ratios show what the module costs:
//   GET /api/organizations/:orgId/members?limit=50   an organization with 10,000 members
//   GET /api/organizations                           a user who belongs to 200 organizations
// The data is seeded straight into the database. Requests go over loopback only, a bounded number
// per endpoint, several rounds interleaved; the figures are medians over the rounds. /api/auth/me
// (the guard alone) is measured too, to separate the module's cost from the guard's.
//
//   node bench/cases/orgs-http.mjs      (standalone: prints the result as JSON)
// bench/run.js calls run({ root }) and stores the result under the case name.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const FIXTURE = 'orgs-sqlite';
const MEMBERS = 10_000;
const ORGANIZATIONS_OF_USER = 200;
const REQUESTS = Number(process.env.BENCH_ORGS_REQUESTS ?? 1500);
const WARMUP = 200;
const CONCURRENCY = 8;
const ROUNDS = 3;

const round1 = (value) => Math.round(value * 10) / 10;
const round2 = (value) => Math.round(value * 100) / 100;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

function sh(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A built, installed orgs-sqlite app: test/tmp/orgs-sqlite when the runtime tests prepared it, else a fresh one. */
function prepareApp(root) {
  const prepared = path.join(root, 'test/tmp', FIXTURE);
  if (existsSync(path.join(prepared, 'dist/server.js')) && existsSync(path.join(prepared, 'node_modules/better-sqlite3'))) {
    return { dir: prepared, reused: true };
  }
  const dir = path.join(tmpdir(), `gatekit-bench-${FIXTURE}`);
  if (!existsSync(path.join(root, 'dist/cli.js'))) sh('npm', ['run', 'build'], { cwd: root });
  const installed = existsSync(path.join(dir, 'node_modules/better-sqlite3'));
  if (!installed) rmSync(dir, { recursive: true, force: true });
  sh(process.execPath, ['bin/create-gatekit.js', dir, '--config', `fixtures/${FIXTURE}.json`, '--yes', '--no-install', '--no-git', '--pm', 'npm', '--force'], {
    cwd: root,
    env: { ...process.env, CI: 'true' },
  });
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir });
  sh('npm', ['run', 'build'], { cwd: dir });
  return { dir, reused: false };
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

async function startServer(dir, env) {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: dir,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 300) throw new Error(`server did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * One organization with MEMBERS members and ORGANIZATIONS_OF_USER organizations for the user, in
 * one transaction with better-sqlite3 (the app's own driver). Dates are stored in the format the
 * app's Prisma adapter used for the user it registered.
 */
function seed(dir, databaseFile, userId) {
  const Database = createRequire(path.join(dir, 'package.json'))('better-sqlite3');
  const db = new Database(databaseFile);
  try {
    const { createdAt: now } = db.prepare('SELECT "createdAt" FROM "User" WHERE "id" = ?').get(userId);
    const addUser = db.prepare('INSERT INTO "User" ("id", "email", "name", "emailVerified", "twoFactorEnabled", "createdAt", "updatedAt") VALUES (?, ?, ?, 0, 0, ?, ?)');
    const addOrganization = db.prepare('INSERT INTO "Organization" ("id", "name", "slug", "description", "createdAt", "updatedAt") VALUES (?, ?, ?, NULL, ?, ?)');
    const addMember = db.prepare('INSERT INTO "OrgMember" ("id", "organizationId", "userId", "role", "joinedAt") VALUES (?, ?, ?, ?, ?)');
    const pad = (n) => String(n).padStart(6, '0');
    db.transaction(() => {
      const big = 'bench-org-big';
      addOrganization.run(big, 'Big Org', 'big-org', now, now);
      addMember.run(`member-big-${pad(0)}`, big, userId, 'owner', now);
      for (let i = 1; i < MEMBERS; i++) {
        const id = `bench-user-${pad(i)}`;
        addUser.run(id, `${id}@example.com`, `Member ${i}`, now, now);
        addMember.run(`member-big-${pad(i)}`, big, id, i % 50 === 0 ? 'admin' : 'member', now);
      }
      for (let i = 1; i < ORGANIZATIONS_OF_USER; i++) {
        const id = `bench-org-${pad(i)}`;
        addOrganization.run(id, `Org ${i}`, `org-${pad(i)}`, now, now);
        addMember.run(`member-of-user-${pad(i)}`, id, userId, i % 3 === 0 ? 'member' : 'owner', now);
      }
    })();
    return { bigOrganizationId: 'bench-org-big', middleCursor: `member-big-${pad(MEMBERS / 2)}` };
  } finally {
    db.close();
  }
}

/** REQUESTS GETs with CONCURRENCY in flight; every answer must be 200. */
async function load(url, token, count) {
  const latencies = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const started = performance.now();
      const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function run({ root }) {
  const { dir, reused } = prepareApp(root);
  const databaseFile = path.join(tmpdir(), `gatekit-bench-orgs-${process.pid}.db`);
  const databaseUrl = `file:${databaseFile}`;
  sh('npm', ['run', 'db:migrate'], { cwd: dir, env: { ...process.env, DATABASE_URL: databaseUrl } });
  const server = await startServer(dir, {
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64'),
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'warn',
    SMTP_HOST: '',
  });
  try {
    const registered = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench-owner@example.com', password: 'a long bench passphrase' }),
    });
    if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
    const { token, user } = await registered.json();
    const { bigOrganizationId, middleCursor } = seed(dir, databaseFile, user.id);

    const endpoints = {
      healthz: { path: '/healthz', token: undefined },
      // The guard alone (JWT check and token lookup), which every organization route pays too.
      authMe: { path: '/api/auth/me', token },
      members: { path: `/api/organizations/${bigOrganizationId}/members?limit=50`, token },
      membersMiddlePage: { path: `/api/organizations/${bigOrganizationId}/members?limit=50&cursor=${middleCursor}`, token },
      organizations: { path: '/api/organizations', token },
    };
    // The seeded data answers as expected before anything is measured.
    const members = await (await fetch(`${server.url}${endpoints.members.path}`, { headers: { authorization: `Bearer ${token}` } })).json();
    if (members.members?.length !== 50 || !members.nextCursor) throw new Error('the members page is not what was seeded');
    let organizationCount = 0;
    for (let cursor = null, first = true; first || cursor; first = false) {
      const page = await (await fetch(`${server.url}/api/organizations?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${token}` } })).json();
      organizationCount += page.organizations.length;
      cursor = page.nextCursor;
    }
    if (organizationCount !== ORGANIZATIONS_OF_USER) throw new Error(`the user is in ${organizationCount} organizations, not ${ORGANIZATIONS_OF_USER}`);

    for (const endpoint of Object.values(endpoints)) await load(`${server.url}${endpoint.path}`, endpoint.token, WARMUP);
    const samples = Object.fromEntries(Object.keys(endpoints).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, endpoint] of Object.entries(endpoints)) samples[name].push(await load(`${server.url}${endpoint.path}`, endpoint.token, REQUESTS));
    }
    const figures = Object.fromEntries(
      Object.entries(samples).map(([name, runs]) => [
        name,
        {
          path: endpoints[name].path.replace(bigOrganizationId, ':orgId').replace(middleCursor, '<middle>'),
          requestsPerSecond: Math.round(median(runs.map((one) => one.rps))),
          p50Ms: round2(median(runs.map((one) => one.p50))),
          p99Ms: round2(median(runs.map((one) => one.p99))),
        },
      ]),
    );
    const ratio = (name) => ({
      requestsPerSecondVsHealthz: round2(figures[name].requestsPerSecond / figures.healthz.requestsPerSecond),
      p99VsHealthz: round1(figures[name].p99Ms / figures.healthz.p99Ms),
    });
    return {
      fixture: FIXTURE,
      appReused: reused,
      database: 'sqlite',
      seeded: { membersOfOrganization: MEMBERS, organizationsOfUser: ORGANIZATIONS_OF_USER },
      requestsPerRound: REQUESTS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      endpoints: figures,
      ratios: { authMe: ratio('authMe'), members: ratio('members'), membersMiddlePage: ratio('membersMiddlePage'), organizations: ratio('organizations') },
    };
  } finally {
    await server.stop();
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${databaseFile}${suffix}`, { force: true });
  }
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  run({ root }).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
