#!/usr/bin/env node
// Server CPU per request of /healthz, /api/auth/me and a members page (10,000-member organization,
// limit 50) for one or more built apps, side by side: to tell whether a change to the generated
// code made a route cheaper, on a machine whose speed moves more than the change.
//
//   node scripts/route-costs.mjs <app dir> [<app dir>...]
//   ROUNDS=9 REQUESTS=3000 node scripts/route-costs.mjs /tmp/before /tmp/after
//
// How: every app is started with its own `npm start` command (without npm) on its own seeded
// SQLite database, then pinned to core 0 with `taskset -a -p`, and the load generator
// (bench/lib/load-worker.mjs, 8 keep-alive connections) to core 1, so the two never share a core
// and the scheduler never moves them. Each round loads every route of every app in turn (the order
// rotates); the figure is the median over the rounds of the server's user + system CPU time
// (/proc/<pid>/stat) divided by its requests. Pinned this way, the rounds of one route moved by
// about ±15 % on the 2-core machine of docs/performance.md, against ±40 % unpinned. The bench
// (`npm run bench`) stays unpinned, as apps run in production; this is a tool for comparing code.
// PIN=0 leaves every process unpinned, as `npm run bench` runs them, and adds the req/s ratios.
// Needs Linux with taskset (util-linux) and at least 2 cores.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv, cpuMsOf, startCommand, startLoadWorker, startServer } from '../bench/cases/http.mjs';
import { seedMembers } from './lib/seed-members.mjs';

const dirs = process.argv.slice(2).map((dir) => path.resolve(dir));
if (dirs.length === 0) {
  console.error('usage: node scripts/route-costs.mjs <app dir> [<app dir>...]');
  process.exit(2);
}
if (cpus().length < 2) throw new Error('route-costs needs 2 cores: one for the app, one for the load');
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const REQUESTS = Number(process.env.REQUESTS ?? 3000);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// PIN=0 leaves the processes where the scheduler puts them, as `npm run bench` does.
const PINNED = process.env.PIN !== '0';
const pin = (pid, core) => PINNED && execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });

async function post(url, body, token) {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${new URL(url).pathname} answered ${response.status}`);
  return response.json();
}

/** Starts one app on a fresh database with a signed-in owner of a 10,000-member organization. */
async function startApp(dir, work) {
  const databaseFile = path.join(work, `${path.basename(dir)}-${randomBytes(4).toString('hex')}.db`);
  const env = { ...baseEnv(), DATABASE_URL: `file:${databaseFile}`, JWT_SECRET: randomBytes(48).toString('base64'), RATE_LIMIT_MAX: '0' };
  execFileSync('npm', ['run', 'db:migrate'], { cwd: dir, env, stdio: 'ignore' });
  const server = await startServer({ name: dir, cwd: dir, ...startCommand(dir), env, readyPath: '/healthz' });
  const { token, user } = await post(`${server.url}/api/auth/register`, { email: 'costs@example.com', password: 'correct horse battery staple' });
  const { organization } = await post(`${server.url}/api/organizations`, { name: 'Costs' }, token);
  seedMembers(databaseFile, { organizationId: organization.id, userId: user.id });
  pin(server.pid, 0);
  const authorization = { authorization: `Bearer ${token}` };
  const routes = {
    healthz: [`${server.url}/healthz`, {}],
    me: [`${server.url}/api/auth/me`, authorization],
    members: [`${server.url}/api/organizations/${organization.id}/members?limit=50`, authorization],
  };
  return { dir, server, routes, costs: { healthz: [], me: [], members: [] }, rps: { healthz: [], me: [], members: [] } };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-route-costs-'));
const apps = [];
let loader;
try {
  for (const dir of dirs) apps.push(await startApp(dir, work));
  loader = startLoadWorker(root);
  pin(loader.pid, 1);
  for (const app of apps) for (const [url, headers] of Object.values(app.routes)) await loader.load(url, headers, 1000);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ['healthz', 'me', 'members']) {
      for (let k = 0; k < apps.length; k++) {
        const app = apps[(k + round) % apps.length];
        const before = cpuMsOf(app.server.pid);
        const { rps } = await loader.load(...app.routes[name], REQUESTS);
        app.rps[name].push(rps);
        app.costs[name].push(((cpuMsOf(app.server.pid) - before) * 1000) / REQUESTS);
      }
    }
  }
  console.log(`server CPU µs per request, median of ${ROUNDS} rounds of ${REQUESTS} requests (${PINNED ? 'app on core 0, load on core 1' : 'not pinned'})`);
  for (const { dir, costs, rps } of apps) {
    const [healthz, me, members] = ['healthz', 'me', 'members'].map((name) => median(costs[name]));
    console.log(`\n${dir}`);
    for (const [name, value] of Object.entries({ healthz, me, members })) {
      console.log(`  ${name.padEnd(8)} ${value.toFixed(0).padStart(5)}   rounds ${costs[name].map((cost) => cost.toFixed(0)).join(', ')}`);
    }
    console.log(`  /healthz ÷ /me ${(healthz / me).toFixed(2)} (target of /me ≥ 0.5), /healthz ÷ members ${(healthz / members).toFixed(2)} (target ≥ 0.25)`);
    const [healthzRps, meRps, membersRps] = ['healthz', 'me', 'members'].map((name) => median(rps[name]));
    console.log(`  by req/s: /me ÷ /healthz ${(meRps / healthzRps).toFixed(2)}, members ÷ /healthz ${(membersRps / healthzRps).toFixed(2)}`);
  }
} finally {
  loader?.stop();
  for (const app of apps) await app.server.stop();
  rmSync(work, { recursive: true, force: true });
}
