// What the audit module costs (issue 34): sign-in and refresh of the full app with `audit` against
// the same app generated without it, in the same run, on SQLite and on PostgreSQL. Target: with
// audit, each costs at most 1.15x what it costs without (req/s; server CPU per request beside it).
//
//   noAudit   `create-gatekit --config fixtures/full.json` with "audit" left out of its modules
//   audit     the full app (audit on, no webhook: the default)
//   webhook   the full app with AUDIT_WEBHOOK_URL and AUDIT_WEBHOOK_SECRET set, delivering to an
//             https receiver in this process that answers 204 (a self-signed certificate made by
//             openssl for the run, trusted through NODE_EXTRA_CA_CERTS): each event also writes its
//             outbox row, and the delivery loop runs in the server. For information, no target.
// Each server has its own database (created and dropped by the run), one registered user, and the
// same loads: POST /api/auth/login with that user's password (bcrypt cost 12, as in production; each
// answer starts a session and records auth.signed_in), and POST /api/auth/refresh rotating one
// session per connection (a rotation records nothing: B.16 lists no refresh event). A warm-up, then
// ROUNDS interleaved rounds, medians; the load generator is bench/lib/load-worker.mjs.
//
//   BENCH_ONLY=audit npm run bench
// Environment: BENCH_DB=sqlite|postgresql (default both); BENCH_HTTP_SCALE, BENCH_HTTP_ROUNDS as in
// bench/cases/http.mjs.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { prepareApp } from '../lib/apps.mjs';
import { createDatabases, DATABASES } from '../lib/databases.mjs';
import { baseEnv, CONCURRENCY, cpuMsOf, median, round2, sh, startCommand, startLoadWorker, startServer } from '../lib/servers.mjs';

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
const SCALE = Number(process.env.BENCH_HTTP_SCALE ?? 1);
const REQUESTS = { signIn: Math.round(48 * SCALE), refresh: Math.round(2_000 * SCALE) };
const WARMUP = { signIn: 16, refresh: Math.round(400 * SCALE) };
export const TARGETS = { signInCostWithAuditAtMost: 1.15, refreshCostWithAuditAtMost: 1.15 };
const SERVERS = ['noAudit', 'audit', 'webhook'];
const EMAIL = 'bench-audit@example.com';
const PASSWORD = 'a long bench passphrase';

const rotate = (list, by) => [...list.slice(by % list.length), ...list.slice(0, by % list.length)];

async function postJson(url, body, expected) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`POST ${url} answered ${response.status}, not ${expected}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** An https webhook receiver that accepts everything at once and counts what it got; its certificate is made for the run. */
async function startReceiver(work) {
  const key = path.join(work, 'receiver-key.pem');
  const cert = path.join(work, 'receiver-cert.pem');
  sh('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert]);
  let received = 0;
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${server.address().port}/audit`, cert, received: () => received, stop: () => new Promise((resolve) => server.close(resolve)) };
}

export async function run({ root }) {
  const databases = process.env.BENCH_DB ? process.env.BENCH_DB.split(',').map((name) => name.trim()) : DATABASES;
  const result = { compared: { servers: SERVERS, rounds: ROUNDS, requestsPerRound: REQUESTS, concurrency: CONCURRENCY, targets: TARGETS, node: process.version } };
  for (const db of databases) result[db] = await runOn(root, db);
  result.pass = databases.every((db) => result[db].pass);
  return result;
}

async function runOn(root, db) {
  const apps = { audit: prepareApp(root, db), noAudit: prepareApp(root, db, { without: ['audit'] }) };
  const work = path.join(tmpdir(), `gatekit-bench-audit-${db}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const servers = {};
  let worker;
  let dbs;
  let receiver;
  try {
    dbs = await createDatabases(root, db, work, SERVERS.map((name) => name.toLowerCase()));
    receiver = await startReceiver(work);
    const common = { ...baseEnv(), JWT_SECRET: randomBytes(48).toString('base64'), TOTP_ENCRYPTION_KEY: randomBytes(48).toString('base64'), RATE_LIMIT_MAX: '0' };
    const envOf = {
      noAudit: { ...common, DATABASE_URL: dbs.urls.noaudit },
      audit: { ...common, DATABASE_URL: dbs.urls.audit },
      webhook: { ...common, NODE_EXTRA_CA_CERTS: receiver.cert, DATABASE_URL: dbs.urls.webhook, AUDIT_WEBHOOK_URL: receiver.url, AUDIT_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}` },
    };
    const appOf = { noAudit: apps.noAudit, audit: apps.audit, webhook: apps.audit };
    worker = startLoadWorker(root);
    for (const name of SERVERS) {
      sh('npm', ['run', 'db:migrate'], { cwd: appOf[name].dir, env: envOf[name] });
      servers[name] = await startServer({ name, cwd: appOf[name].dir, ...startCommand(appOf[name].dir), env: envOf[name], readyPath: '/healthz' });
    }
    const loadAverageAtStart = loadavg().map(round2);
    const targets = {};
    for (const name of SERVERS) {
      const { url } = servers[name];
      await postJson(`${url}/api/auth/register`, { email: EMAIL, password: PASSWORD, name: 'Bench' }, 201);
      const refreshTokens = [];
      for (let i = 0; i < CONCURRENCY; i++) refreshTokens.push((await postJson(`${url}/api/auth/login`, { email: EMAIL, password: PASSWORD }, 200)).refreshToken);
      targets[name] = {
        signIn: { path: '/api/auth/login', body: { email: EMAIL, password: PASSWORD } },
        refresh: { path: '/api/auth/refresh', refreshTokens },
      };
    }
    const load = async (name, endpoint, count) => {
      const target = targets[name][endpoint];
      const cpuBefore = cpuMsOf(servers[name].pid);
      const figures = await worker.load(`${servers[name].url}${target.path}`, undefined, count, target.refreshTokens, target.body);
      if (target.refreshTokens) target.refreshTokens = figures.refreshTokens;
      return { rps: figures.rps, p99: figures.p99, cpuUs: ((cpuMsOf(servers[name].pid) - cpuBefore) * 1000) / count };
    };
    const runs = {};
    for (const endpoint of Object.keys(REQUESTS)) {
      for (const name of SERVERS) {
        await load(name, endpoint, WARMUP[endpoint]);
        runs[`${endpoint}.${name}`] = [];
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const endpoint of Object.keys(REQUESTS)) {
        for (const name of rotate(SERVERS, round)) runs[`${endpoint}.${name}`].push(await load(name, endpoint, REQUESTS[endpoint]));
      }
    }
    const figures = {};
    for (const endpoint of Object.keys(REQUESTS)) {
      figures[endpoint] = {};
      for (const name of SERVERS) {
        const rounds = runs[`${endpoint}.${name}`];
        figures[endpoint][name] = {
          requestsPerSecond: Math.round(median(rounds.map((one) => one.rps))),
          p99Ms: round2(median(rounds.map((one) => one.p99))),
          serverCpuUsPerRequest: Math.round(median(rounds.map((one) => one.cpuUs))),
          rounds: rounds.map((one) => ({ requestsPerSecond: Math.round(one.rps), serverCpuUsPerRequest: Math.round(one.cpuUs) })),
        };
      }
    }
    // Cost with audit ÷ cost without: the inverse ratio of req/s (the target), and of CPU per request.
    const cost = (endpoint, name) => ({
      value: round2(figures[endpoint].noAudit.requestsPerSecond / figures[endpoint][name].requestsPerSecond),
      perRound: runs[`${endpoint}.noAudit`].map((one, i) => round2(one.rps / runs[`${endpoint}.${name}`][i].rps)),
      byServerCpu: round2(figures[endpoint][name].serverCpuUsPerRequest / figures[endpoint].noAudit.serverCpuUsPerRequest),
      cpuAddedUs: figures[endpoint][name].serverCpuUsPerRequest - figures[endpoint].noAudit.serverCpuUsPerRequest,
    });
    const judged = [
      { figure: 'sign-in cost with audit ÷ without', ...cost('signIn', 'audit'), target: `≤ ${TARGETS.signInCostWithAuditAtMost}` },
      { figure: 'refresh cost with audit ÷ without', ...cost('refresh', 'audit'), target: `≤ ${TARGETS.refreshCostWithAuditAtMost}` },
    ].map((one) => ({ ...one, pass: one.value <= Number(one.target.slice(2)) }));
    const information = [
      { figure: 'sign-in cost with audit and a webhook ÷ without audit', ...cost('signIn', 'webhook') },
      { figure: 'refresh cost with audit and a webhook ÷ without audit', ...cost('refresh', 'webhook') },
    ];
    return {
      database: db,
      apps: { noAudit: apps.noAudit.fixture, audit: apps.audit.fixture },
      database_: dbs.description,
      loadAverage: { start: loadAverageAtStart, end: loadavg().map(round2) },
      endpoints: figures,
      webhookDeliveries: receiver.received(),
      targets: judged,
      information,
      pass: judged.every((one) => one.pass),
    };
  } finally {
    worker?.stop();
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await receiver?.stop();
    await dbs?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

export function format(result) {
  const lines = [`audit (sign-in and refresh with and without the audit module; ${CONCURRENCY} connections, median of ${result.compared.rounds} interleaved rounds)`];
  for (const db of DATABASES.filter((name) => result[name])) {
    const r = result[db];
    lines.push(`  ${db} (load average ${r.loadAverage.start.join(' ')} → ${r.loadAverage.end.join(' ')}; ${r.webhookDeliveries} webhook deliveries)`);
    for (const [endpoint, perServer] of Object.entries(r.endpoints)) {
      lines.push(`    ${endpoint.padEnd(8)} ${SERVERS.map((name) => `${name} ${perServer[name].requestsPerSecond} req/s, ${perServer[name].serverCpuUsPerRequest} µs`).join(' | ')}`);
    }
    for (const one of r.targets) lines.push(`    ${one.pass ? 'PASS' : 'FAIL'}  ${one.figure}: ${one.value} (rounds ${one.perRound.join(', ')}; by CPU ${one.byServerCpu}, ${one.cpuAddedUs} µs added) target ${one.target}`);
    for (const one of r.information) lines.push(`    info  ${one.figure}: ${one.value} (by CPU ${one.byServerCpu}, ${one.cpuAddedUs} µs added)`);
  }
  return lines;
}
