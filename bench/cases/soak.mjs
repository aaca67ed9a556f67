// Soak: mixed traffic on the generated full fixture for a few minutes, to see that throughput and
// latency hold and memory does not grow without bound.
//
// The app is the one bench/cases/http.mjs builds (bench/tmp/http-app: fixtures/full.json, every
// module, SQLite), `node dist/server.js` with NODE_ENV=production (so bcrypt cost 12),
// RATE_LIMIT_MAX=0, no Redis, no SMTP (invite mails are logged as not sent), LOG_LEVEL unset (one
// JSON line per request, to /dev/null). USERS users register and each creates an organization
// through the API; then bench/lib/soak-worker.mjs (its own process) sends, over CONCURRENCY
// keep-alive connections in a closed loop, a mix by weight: sign-ins 1, /me 10, organization list 4,
// organization read 4, members 4, organization create 1, rename 1, invite 2, invites list 2.
// Every answer must have its expected status, or the case fails.
//
// Reported: throughput and latency (p50, p99, max; per kind too; p99 per window), and the
// server's resident set (VmRSS, /proc/<pid>/status) after start-up, after the set-up, at the end
// of the first third of the load and at the end, with its peak; and the live heap after each full
// garbage collection (the server runs with --trace-gc). Memory must not grow without bound: the
// targets are that the last two thirds of the load add at most TARGETS.rssGrowthMiBAtMost of RSS,
// and the live heap grows at most TARGETS.liveHeapGrowthMiBAtMost from the first full collection
// of the load to the last. V8 lets the heap fill for a minute or more before its first full
// collection (seen here: 31 MB live, then 127 MB before the collection brought it back to 35), so
// RSS climbs early in the run whatever happens; short runs say little. Writes make the database
// grow all along (organizations, invites).
//
//   BENCH_ONLY=soak npm run bench                (stored in bench/results.json)
//   node bench/cases/soak.mjs                    (standalone)
// Environment: BENCH_SOAK_SECONDS (default 180), BENCH_SOAK_CONCURRENCY (default 8),
// BENCH_HTTP_APP=<dir> uses an app already generated, installed and built there.
import { fork, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv, memoryOf, prepareApp, startCommand, startServer } from './http.mjs';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 180);
const CONCURRENCY = Number(process.env.BENCH_SOAK_CONCURRENCY ?? 8);
const USERS = 20;
const WINDOWS = 12;
const PASSWORD = 'a long soak passphrase';

export const TARGETS = { rssGrowthMiBAtMost: 32, liveHeapGrowthMiBAtMost: 16 };

const round1 = (value) => Math.round(value * 10) / 10;

async function post(url, route, body, token) {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (![200, 201].includes(response.status)) throw new Error(`POST ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

function runWorker(root, message, onWindow) {
  const worker = fork(path.join(root, 'bench/lib/soak-worker.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    worker.on('message', (reply) => {
      if (reply.window) return onWindow(reply.window);
      worker.disconnect();
      if (reply.ok) resolve(reply.result);
      else reject(new Error(`soak load failed: ${reply.error}`));
    });
    worker.on('exit', (code) => reject(new Error(`the soak worker exited (${code})`)));
    worker.send(message);
  });
}

export async function run({ root }) {
  if (process.platform !== 'linux') throw new Error('bench/soak reads RSS from /proc: Linux only');
  const app = prepareApp(root);
  const work = path.join(tmpdir(), `gatekit-bench-soak-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const env = {
    ...baseEnv(),
    DATABASE_URL: `file:${path.join(work, 'soak.db')}`,
    JWT_SECRET: randomBytes(48).toString('base64'),
    TOTP_ENCRYPTION_KEY: randomBytes(48).toString('base64'),
    RATE_LIMIT_MAX: '0',
  };
  const migrated = spawnSync('npm', ['run', 'db:migrate'], { cwd: app.dir, env, encoding: 'utf8' });
  if (migrated.status !== 0) throw new Error(`db:migrate failed:\n${migrated.stdout}\n${migrated.stderr}`);

  // --trace-gc prints every collection on stdout; after each full one (Mark-Compact) the heap holds
  // only live objects, which is what a leak makes grow. RSS alone also grows while V8 lets the
  // heap fill up before its first full collections.
  const fullCollections = [];
  let loadStarted;
  let pending = '';
  const onStdout = (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      const match = /Mark-Compact[^>]*-> ([\d.]+) \(/.exec(line);
      if (match && loadStarted !== undefined) fullCollections.push({ at: Math.round((performance.now() - loadStarted) / 1000), liveMiB: Number(match[1]) });
    }
  };
  const { script, nodeArgs } = startCommand(app.dir);
  const server = await startServer({ name: 'gatekit', cwd: app.dir, script, env, readyPath: '/healthz', nodeArgs: [...nodeArgs, '--trace-gc'], onStdout });
  const loadAverageAtStart = loadavg().map((value) => Math.round(value * 100) / 100);
  try {
    const rssAfterStart = memoryOf(server.pid).endMiB;
    const users = [];
    for (let i = 0; i < USERS; i++) {
      const email = `soak-${i}@example.com`;
      const { token } = await post(server.url, '/api/auth/register', { email, password: PASSWORD, name: `Soak ${i}` });
      const { organization } = await post(server.url, '/api/organizations', { name: `Soak ${i}`, slug: `soak-home-${i}` }, token);
      users.push({ email, password: PASSWORD, token, organizationId: organization.id });
    }
    const rssAfterSetup = memoryOf(server.pid).endMiB;

    const windowSeconds = Math.max(1, Math.round(SECONDS / WINDOWS));
    loadStarted = performance.now();
    const windows = [];
    const result = await runWorker(root, { url: server.url, seconds: SECONDS, concurrency: CONCURRENCY, users, windowSeconds }, (window) => {
      const rss = memoryOf(server.pid).endMiB;
      windows.push({ ...window, p99: round1(window.p99), rssMiB: rss });
      console.error(`bench/soak: ${window.at}s ${window.count} requests, p99 ${round1(window.p99)} ms, RSS ${rss} MiB`);
    });
    const memory = memoryOf(server.pid);
    const third = windows[Math.floor(windows.length / 3) - 1] ?? windows[0];
    const rssWarm = third?.rssMiB ?? rssAfterSetup;
    return {
      fixture: 'full',
      seconds: round1(result.seconds),
      concurrency: CONCURRENCY,
      users: USERS,
      requests: result.count,
      rps: round1(result.rps),
      p50Ms: round1(result.p50),
      p99Ms: round1(result.p99),
      maxMs: round1(result.max),
      byKind: Object.fromEntries(Object.entries(result.byKind).map(([kind, figures]) => [kind, { count: figures.count, p50Ms: round1(figures.p50), p99Ms: round1(figures.p99) }])),
      windows,
      rssMiB: { afterStart: rssAfterStart, afterSetup: rssAfterSetup, warm: rssWarm, warmAtSecond: third?.at ?? 0, end: memory.endMiB, peak: memory.peakMiB },
      rssGrowthMiB: round1(memory.endMiB - rssWarm),
      // Heap after each full collection during the load (MB as V8 prints them).
      fullCollections,
      liveHeapGrowthMiB: fullCollections.length >= 2 ? round1(fullCollections.at(-1).liveMiB - fullCollections[0].liveMiB) : null,
      loadAverageAtStart,
      targets: TARGETS,
    };
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export function format(result) {
  const pass = (ok) => (ok ? 'PASS' : 'FAIL');
  const m = result.rssMiB;
  return [
    `soak (${result.fixture}, ${result.seconds} s, ${result.concurrency} connections, ${result.users} users; load average at start ${result.loadAverageAtStart.join(' ')})`,
    `  ${result.requests} requests, ${result.rps} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms`,
    ...Object.entries(result.byKind).map(([kind, figures]) => `    ${kind.padEnd(20)} ${String(figures.count).padStart(7)}  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms`),
    `  p99 per window: ${result.windows.map((window) => `${window.at}s ${window.p99}`).join(', ')} ms`,
    `  RSS: ${m.afterStart} MiB after start, ${m.afterSetup} after set-up, ${m.warm} at ${m.warmAtSecond} s, ${m.end} at the end (peak ${m.peak})`,
    `  RSS growth over the last two thirds: ${result.rssGrowthMiB} MiB (target ≤ ${result.targets.rssGrowthMiBAtMost}: ${pass(result.rssGrowthMiB <= result.targets.rssGrowthMiBAtMost)})`,
    `  heap after each full GC: ${result.fullCollections.map((gc) => `${gc.at}s ${gc.liveMiB}`).join(', ') || 'none during the load'} MB` +
      (result.liveHeapGrowthMiB === null
        ? ' (fewer than two: no live-heap figure)'
        : `; growth ${result.liveHeapGrowthMiB} MB (target ≤ ${result.targets.liveHeapGrowthMiBAtMost}: ${pass(result.liveHeapGrowthMiB <= result.targets.liveHeapGrowthMiBAtMost)})`),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const result = await run({ root });
  console.log(format(result).join('\n'));
  console.log(JSON.stringify(result, null, 2));
}
