#!/usr/bin/env node
// Server CPU per request of GET /healthz for one or more built apps next to the bare Express 5 +
// helmet app of the benchmark, all loaded at the same time: to tell what the middleware stack
// costs over bare Express when the difference is a few microseconds.
//
//   node scripts/stack-costs.mjs <app dir> [<app dir>...]
//   ROUNDS=11 REQUESTS=6000 node scripts/stack-costs.mjs /tmp/before /tmp/after
//
// How: every server is pinned to core 0 and every load generator (one per server,
// bench/lib/load-worker.mjs, 8 keep-alive connections) to core 1 with `taskset -a -p`. In each
// round all servers are loaded at once, so they share the same core at the same moment and
// whatever else slows the machine slows them all alike: the ratio of each server's CPU per request
// to the bare app's in the same round moves by a few percent between rounds, where figures taken
// one after another (scripts/route-costs.mjs) move by ±15 %. The figure is the median of those
// per-round ratios. Apps run their own `npm start` command (without npm) on their own dev.db
// (`/healthz` reads nothing). Needs Linux with taskset and at least 2 cores.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv, cpuMsOf, startCommand, startLoadWorker, startServer } from '../bench/cases/http.mjs';

const dirs = process.argv.slice(2).map((dir) => path.resolve(dir));
if (dirs.length === 0) {
  console.error('usage: node scripts/stack-costs.mjs <app dir> [<app dir>...]');
  process.exit(2);
}
if (cpus().length < 2) throw new Error('stack-costs needs 2 cores: one for the servers, one for the load');
const ROUNDS = Number(process.env.ROUNDS ?? 11);
const REQUESTS = Number(process.env.REQUESTS ?? 6000);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pin = (pid, core) => execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const specs = [
  { name: 'bare Express 5 + helmet', cwd: path.join(root, 'bench/peer'), script: 'bare-express.mjs', nodeArgs: [], env: baseEnv() },
  ...dirs.map((dir) => ({
    name: dir,
    cwd: dir,
    ...startCommand(dir),
    env: { ...baseEnv(), DATABASE_URL: `file:${path.join(dir, 'dev.db')}`, JWT_SECRET: randomBytes(48).toString('base64'), RATE_LIMIT_MAX: '0' },
  })),
];
const servers = [];
try {
  for (const spec of specs) {
    const server = await startServer({ ...spec, readyPath: '/healthz' });
    const loader = startLoadWorker(root);
    servers.push({ name: spec.name, server, loader, costs: [] });
    pin(server.pid, 0);
    pin(loader.pid, 1);
  }
  const load = (requests) => Promise.all(servers.map(({ server, loader }) => loader.load(`${server.url}/healthz`, {}, requests)));
  await load(2000);
  for (let round = 0; round < ROUNDS; round++) {
    const before = servers.map(({ server }) => cpuMsOf(server.pid));
    await load(REQUESTS);
    servers.forEach(({ server, costs }, k) => costs.push(((cpuMsOf(server.pid) - before[k]) * 1000) / REQUESTS));
  }
  const bare = servers[0].costs;
  console.log(`GET /healthz, server CPU µs per request, all servers loaded together (servers on core 0, load on core 1), ${ROUNDS} rounds of ${REQUESTS}`);
  for (const { name, costs } of servers) {
    const ratio = median(costs.map((cost, round) => cost / bare[round]));
    console.log(`\n${name}\n  ${median(costs).toFixed(0)} µs, ${ratio.toFixed(3)}× the bare app's (the target, req/s ≥ 0.95× bare, needs about ≤ 1.05×)`);
    console.log(`  rounds ${costs.map((cost) => cost.toFixed(0)).join(', ')}`);
  }
} finally {
  for (const { server, loader } of servers) {
    loader.stop();
    await server.stop();
  }
}
