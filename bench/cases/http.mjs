// HTTP benchmark: a generated Gatekit app next to a Better Auth peer, a bare Express 5 + helmet app
// and a bare Express 5 route doing the app's Prisma read, all started by this case, on this
// machine, in the same run: once on SQLite, once on PostgreSQL (BENCH_DB=sqlite or postgresql runs
// one). The targets are issue 23's (bench/lib/report.mjs).
//
// What is compared (every request a GET over loopback, 8 keep-alive connections for every server,
// a closed loop: each connection sends its next request when the previous answer has been read):
//   gatekit     the app `create-gatekit --config fixtures/full.json` generates (every module,
//               organizations included; for PostgreSQL the same config with "db": "postgresql"),
//               built, its `npm start` command run without npm, NODE_ENV=production,
//               RATE_LIMIT_MAX=0, API_KEY_RATE_LIMIT=0, LOG_LEVEL unset, so the app's default (info: one JSON line per
//               request, written to /dev/null), no Redis, no SMTP. Access tokens HS256 (the default).
//   gatekitMe   a second process of the same app on the same database (HS256), loaded with /me only.
//   gatekitEdDSA  a third one with JWT_ALGORITHM=EdDSA (and KEY_ENCRYPTION_KEYS), loaded with /me
//               only: /me with tokens signed by its Ed25519 key. EdDSA is judged against gatekitMe,
//               not gatekit: a process that idles through every other endpoint's load answers /me
//               with more CPU than one kept busy by them (1.51x with HS256 on both, in a trial
//               here), so only two processes used alike compare the algorithms.
//   peer        bench/peer/server.mjs: Better Auth 1.7 (email and password, organization plugin) on
//               Express 5, mounted with app.all('/api/auth/*splat', toNodeHandler(auth)), on
//               better-sqlite3 or on pg's Pool, NODE_ENV=production, rate limit off, defaults
//               otherwise (no cookie cache: get-session reads the database on every request).
//   bare        bench/peer/bare-express.mjs: Express 5 + helmet(), GET /healthz, nothing else.
//   barePrisma  bench/peer/bare-prisma-read.mjs: the app's own Express and its built Prisma client
//               (its createPrismaClient: same Prisma, adapter, options and database), one route
//               reading the user by id (findFirst, the guard's method); and, for information, the
//               guard's own query and findUnique.
//
//   figure        gatekit                                      peer                                      bare / barePrisma
//   healthz       GET /healthz                                 GET /ok (a trivial Express route)         GET /healthz
//   authMe        GET /api/auth/me, Bearer JWT (HS256; also      GET /api/auth/get-session, cookie         GET /users/:id
//                 gatekitMe, HS256, and gatekitEdDSA, EdDSA)
//   authMeApiKey  GET /api/auth/me, Bearer gk_user_ API key     GET /api/auth/get-session, x-api-key (the api-key plugin,
//                                                              enableSessionForAPIKeys, its rate limit off)
//   guardQuery                                                                                           GET /users/:id/sessions/:sid
//   findUnique                                                                                           GET /users/:id/unique
//   refresh       POST /api/auth/refresh, one session per connection, each request rotating the token the
//                 previous answer gave (no peer figure: Better Auth's sessions have no refresh token)
//   signIn        POST /api/auth/login with the seeded owner's password (bcrypt cost 12, as production
//                 requires; each answer starts a session), for the app's own before/after figures
//   members       GET /api/organizations/:id/members?limit=50  GET /api/auth/organization/list-members?organizationId=…&limit=50
//                 (first page, keyset, nextCursor)             (first page, offset, plus a COUNT of all members: its API's shape)
//   server CPU per request   user + system time of the server process (/proc/<pid>/stat) over one load ÷ its requests
//   peak RSS                 VmHWM of the server process (/proc/<pid>/status), read after all loads
//   cold start               spawn of `node <server>` to the first 200 on /healthz (/ok), polled every 5 ms, on the
//                            seeded database, page cache warm; median of COLD_STARTS starts, interleaved
// Data: bench/lib/seed.mjs. Databases (created and dropped by the run): bench/lib/databases.mjs.
//
// The load generator is bench/lib/load-worker.mjs in its own process, so client CPU is never
// counted in a server. Per endpoint: a warm-up, then ROUNDS rounds interleaved across the servers
// (the order rotates each round); figures are the medians over the rounds, ratios are ratios of
// those medians (per-round ratios are kept too, to show the noise). Any answer other than 200 fails
// the case. The machine has 2 cores: client and server each get about one, and anything else
// running on the machine is noise: run it more than once.
//
//   node bench/cases/http.mjs                  (standalone: prints the tables, then the JSON)
//   BENCH_ONLY=http npm run bench              (through bench/run.js; stored in bench/results.json)
// Environment: BENCH_DB=sqlite|postgresql (default both); BENCH_HTTP_SCALE=0.5 scales every
// request count (default 1); BENCH_HTTP_ROUNDS=3 (default 5); BENCH_POSTGRES_URL (default the
// local server); BENCH_HTTP_APP / BENCH_HTTP_APP_POSTGRESQL: apps already generated and built;
// BENCH_SQLITE_JOURNAL=delete runs the app's SQLite file without WAL (issue 31 item 8's "before").
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareApp, preparePeer } from '../lib/apps.mjs';
import { createDatabases, DATABASES } from '../lib/databases.mjs';
import { formatDatabase, information, judge, TARGETS } from '../lib/report.mjs';
import { checkSeeded, gatekitBearer, MEMBERS, ORGANIZATIONS_OF_USER, seedGatekit, seedPeer } from '../lib/seed.mjs';
import { baseEnv, CONCURRENCY, cpuMsOf, median, memoryOf, round1, round2, sh, startCommand, startLoadWorker, startServer, versionOf } from '../lib/servers.mjs';

// What other scripts import from here.
export { prepareApp } from '../lib/apps.mjs';
export { baseEnv, cpuMsOf, memoryOf, startCommand, startLoadWorker, startServer } from '../lib/servers.mjs';
export { TARGETS };

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
const COLD_STARTS = 5;
const SCALE = Number(process.env.BENCH_HTTP_SCALE ?? 1);
/** Requests per round per server, chosen so one load lasts about 1 to 4 s here. */
const REQUESTS = {
  healthz: Math.round(12_000 * SCALE),
  authMe: Math.round(4_000 * SCALE),
  authMeApiKey: Math.round(4_000 * SCALE),
  guardQuery: Math.round(4_000 * SCALE),
  findUnique: Math.round(4_000 * SCALE),
  members: Math.round(1_500 * SCALE),
  organizations: Math.round(1_500 * SCALE),
  membersMiddlePage: Math.round(1_500 * SCALE),
  refresh: Math.round(2_000 * SCALE),
  // bcrypt at cost 12 takes about a quarter of a second of a core per sign-in.
  signIn: Math.round(60 * SCALE),
};
/** At least this many warm-up requests per server and endpoint (sign-ins are slow by design). */
const WARMUP_MIN = { signIn: 16 };
const WARMUP_SHARE = 0.2;

const rotate = (list, by) => {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
};

/** The payload of a JWT, unverified: the harness only needs the token id the guard reads. */
const jwtPayload = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

export async function run({ root }) {
  if (process.platform !== 'linux') throw new Error('bench/http reads CPU time and peak RSS from /proc: Linux only');
  const databases = process.env.BENCH_DB ? process.env.BENCH_DB.split(',').map((name) => name.trim()) : DATABASES;
  for (const db of databases) if (!DATABASES.includes(db)) throw new Error(`BENCH_DB: unknown database ${JSON.stringify(db)} (${DATABASES.join(' or ')})`);
  const peer = preparePeer(root);
  const result = {
    compared: {
      peer: `better-auth ${peer.versions['better-auth']} (emailAndPassword, organization plugin) on express ${peer.versions.express}, kysely ${peer.versions.kysely}, better-sqlite3 ${peer.versions['better-sqlite3']} or pg ${peer.versions.pg} (Pool), NODE_ENV=production, rate limit off`,
      bare: `express ${peer.versions.express} + helmet ${peer.versions.helmet}`,
      barePrisma: "the app's express and its built Prisma client (dist/db/client.js createPrismaClient), GET /users/:id = prisma.user.findFirst({ where: { id } })",
      node: process.version,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      requestsPerRound: REQUESTS,
      warmupShare: WARMUP_SHARE,
      coldStarts: COLD_STARTS,
      seeded: { membersOfOrganization: MEMBERS, gatekitOrganizationsOfUser: ORGANIZATIONS_OF_USER },
      loadGenerator: 'bench/lib/load-worker.mjs, own process, node:http keep-alive agent, closed loop',
      targets: TARGETS,
    },
  };
  for (const db of databases) result[db] = await runOn(root, db, peer);
  result.pass = databases.every((db) => result[db].pass);
  return result;
}

/** The whole comparison on one database. */
async function runOn(root, db, peer) {
  const app = prepareApp(root, db);
  const work = path.join(tmpdir(), `gatekit-bench-http-${db}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const servers = {};
  let worker;
  let databases;
  try {
    databases = await createDatabases(root, db, work);
    const gatekitEnv = {
      ...baseEnv(),
      DATABASE_URL: databases.gatekitUrl,
      JWT_SECRET: randomBytes(48).toString('base64'),
      TOTP_ENCRYPTION_KEY: randomBytes(48).toString('base64'),
      RATE_LIMIT_MAX: '0',
      // The peer's api-key plugin runs with its rate limit off too.
      API_KEY_RATE_LIMIT: '0',
    };
    const peerEnv = { ...baseEnv(), ...databases.peerEnv, BETTER_AUTH_SECRET: randomBytes(48).toString('base64') };
    const eddsaEnv = { ...gatekitEnv, JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}` };
    const specs = {
      gatekit: { name: 'gatekit', cwd: app.dir, ...startCommand(app.dir), env: gatekitEnv, readyPath: '/healthz' },
      gatekitMe: { name: 'gatekitMe', cwd: app.dir, ...startCommand(app.dir), env: gatekitEnv, readyPath: '/healthz' },
      gatekitEdDSA: { name: 'gatekitEdDSA', cwd: app.dir, ...startCommand(app.dir), env: eddsaEnv, readyPath: '/healthz' },
      peer: { name: 'peer', cwd: peer.dir, script: 'server.mjs', env: peerEnv, readyPath: '/ok' },
      bare: { name: 'bare', cwd: peer.dir, script: 'bare-express.mjs', env: baseEnv(), readyPath: '/healthz' },
      barePrisma: { name: 'barePrisma', cwd: peer.dir, script: 'bare-prisma-read.mjs', env: { ...baseEnv(), GATEKIT_APP: app.dir, DATABASE_URL: databases.gatekitUrl }, readyPath: '/healthz' },
    };
    sh('npm', ['run', 'db:migrate'], { cwd: app.dir, env: { ...gatekitEnv } });
    if (db === 'sqlite' && process.env.BENCH_SQLITE_JOURNAL) await databases.journalMode('gatekit', process.env.BENCH_SQLITE_JOURNAL);
    sh(process.execPath, ['server.mjs', '--migrate'], { cwd: peer.dir, env: { ...peerEnv, PORT: '0' } });

    const loadAverageAtStart = loadavg().map(round2);
    worker = startLoadWorker(root);
    for (const [name, spec] of Object.entries(specs)) servers[name] = await startServer(spec);
    // Resident set right after start-up, to tell start-up memory from what the load adds.
    const rssAfterStart = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, memoryOf(server.pid).endMiB]));

    const gatekit = await seedGatekit(servers.gatekit.url, databases);
    const peerSeed = await seedPeer(servers.peer.url, databases);
    const meBearer = await gatekitBearer(servers.gatekitMe.url, gatekit);
    const eddsaBearer = await gatekitBearer(servers.gatekitEdDSA.url, gatekit);
    const sessionId = jwtPayload(gatekit.bearer.authorization.slice('Bearer '.length)).sid;
    const endpoints = {
      healthz: { gatekit: { path: '/healthz' }, peer: { path: '/ok' }, bare: { path: '/healthz' } },
      authMe: {
        gatekit: { path: '/api/auth/me', headers: gatekit.bearer },
        gatekitMe: { path: '/api/auth/me', headers: meBearer },
        gatekitEdDSA: { path: '/api/auth/me', headers: eddsaBearer },
        peer: { path: '/api/auth/get-session', headers: peerSeed.cookie },
        barePrisma: { path: `/users/${gatekit.userId}` },
      },
      authMeApiKey: {
        gatekit: { path: '/api/auth/me', headers: gatekit.apiKey },
        peer: { path: '/api/auth/get-session', headers: peerSeed.apiKey },
      },
      guardQuery: { barePrisma: { path: `/users/${gatekit.userId}/sessions/${sessionId}` } },
      findUnique: { barePrisma: { path: `/users/${gatekit.userId}/unique` } },
      members: {
        gatekit: { path: `/api/organizations/${gatekit.organizationId}/members?limit=50`, headers: gatekit.bearer },
        peer: { path: `/api/auth/organization/list-members?organizationId=${peerSeed.organizationId}&limit=50`, headers: peerSeed.cookie },
      },
      organizations: { gatekit: { path: '/api/organizations', headers: gatekit.bearer } },
      membersMiddlePage: { gatekit: { path: `/api/organizations/${gatekit.organizationId}/members?limit=50&cursor=${gatekit.middleCursor}`, headers: gatekit.bearer } },
      refresh: { gatekit: { path: '/api/auth/refresh', refreshTokens: gatekit.refreshTokens } },
      signIn: { gatekit: { path: '/api/auth/login', body: { email: gatekit.email, password: gatekit.password } } },
    };
    const get = async (name, endpoint, extra = '') => {
      const response = await fetch(`${servers[name].url}${endpoint.path}${extra}`, { headers: endpoint.headers });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${name} ${endpoint.path} answered ${response.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text);
    };
    await checkSeeded(get, endpoints, { gatekit, peer: peerSeed });

    // Cold starts: extra processes on the same (seeded) databases, one at a time, interleaved.
    const coldStarts = { gatekit: [], peer: [], bare: [] };
    for (let i = 0; i < COLD_STARTS; i++) {
      for (const name of rotate(Object.keys(coldStarts), i)) {
        const server = await startServer(specs[name]);
        coldStarts[name].push(server.coldStartMs);
        await server.stop();
      }
    }

    /** One load of `target` on a server, with the server's CPU time per request. */
    const measuredLoad = async (name, target, count) => {
      const cpuBefore = cpuMsOf(servers[name].pid);
      const load = await worker.load(`${servers[name].url}${target.path}`, target.headers, count, target.refreshTokens, target.body);
      load.serverCpuUsPerRequest = ((cpuMsOf(servers[name].pid) - cpuBefore) * 1000) / count;
      if (target.refreshTokens) target.refreshTokens = load.refreshTokens;
      return load;
    };

    // Loads: warm-up, then ROUNDS interleaved rounds.
    const runsOf = {};
    for (const [endpoint, perServer] of Object.entries(endpoints)) {
      for (const [name, target] of Object.entries(perServer)) {
        const warmUpCount = Math.max(WARMUP_MIN[endpoint] ?? 500, Math.round(REQUESTS[endpoint] * WARMUP_SHARE));
        const warmUp = await worker.load(`${servers[name].url}${target.path}`, target.headers, warmUpCount, target.refreshTokens, target.body);
        if (target.refreshTokens) target.refreshTokens = warmUp.refreshTokens;
        runsOf[`${endpoint}.${name}`] = [];
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [endpoint, perServer] of Object.entries(endpoints)) {
        for (const name of rotate(Object.keys(perServer), round)) runsOf[`${endpoint}.${name}`].push(await measuredLoad(name, perServer[name], REQUESTS[endpoint]));
      }
    }
    const memory = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, memoryOf(server.pid)]));
    const loadAverageAtEnd = loadavg().map(round2);

    // Figures: medians over the rounds, and every round.
    const hide = (text) =>
      text
        .replace(gatekit.organizationId, ':orgId')
        .replace(peerSeed.organizationId, ':orgId')
        .replace(gatekit.middleCursor, '<middle>')
        .replace(gatekit.userId, ':id')
        .replace(sessionId, ':sid');
    const figures = {};
    for (const [endpoint, perServer] of Object.entries(endpoints)) {
      figures[endpoint] = {};
      for (const name of Object.keys(perServer)) {
        const runs = runsOf[`${endpoint}.${name}`];
        figures[endpoint][name] = {
          path: hide(perServer[name].path),
          requestsPerSecond: Math.round(median(runs.map((one) => one.rps))),
          p50Ms: round2(median(runs.map((one) => one.p50))),
          p99Ms: round2(median(runs.map((one) => one.p99))),
          // Server CPU time per request (from /proc, 1/CLK_TCK resolution): less sensitive than req/s
          // to other work on the machine.
          serverCpuUsPerRequest: Math.round(median(runs.map((one) => one.serverCpuUsPerRequest))),
          clientCpuShare: round2(median(runs.map((one) => one.clientCpuShare))),
          rounds: runs.map((one) => ({
            requestsPerSecond: Math.round(one.rps),
            p50Ms: round2(one.p50),
            p99Ms: round2(one.p99),
            maxMs: round1(one.max),
            serverCpuUsPerRequest: Math.round(one.serverCpuUsPerRequest),
            clientCpuShare: round2(one.clientCpuShare),
          })),
          connections: Math.max(...runs.map((one) => one.connections)),
        };
      }
    }
    const coldStartMs = Object.fromEntries(Object.entries(coldStarts).map(([name, runs]) => [name, { medianMs: Math.round(median(runs)), runsMs: runs.map(Math.round) }]));
    const targets = judge({ figures, runsOf, memory, coldStartMs });
    return {
      database: db,
      compared: {
        gatekit: `create-gatekit --config fixtures/${app.fixture}.json${db === 'sqlite' ? '' : ` with "db": "${db}"`} (${app.regenerated ? 'regenerated this run' : `prepared app at ${app.dir}`}), ${['node', ...specs.gatekit.nodeArgs, specs.gatekit.script].join(' ')} (its npm start without npm), NODE_ENV=production, RATE_LIMIT_MAX=0, API_KEY_RATE_LIMIT=0, LOG_LEVEL default (info, one line per request to /dev/null)`,
        gatekitVersions: Object.fromEntries(
          ['express', 'helmet', '@prisma/client', '@prisma/adapter-libsql', '@libsql/client', '@prisma/adapter-pg', 'pg', 'jsonwebtoken', 'pino'].map((name) => [name, versionOf(app.dir, name)]).filter(([, version]) => version),
        ),
        database: databases.description,
        machine: { cpus: cpus().length, model: cpus()[0]?.model, loadAverageAtStart, loadAverageAtEnd, note: 'load averages (1, 5, 15 min) above the core count mean other work shared the machine' },
      },
      endpoints: figures,
      peakRssMiB: Object.fromEntries(Object.entries(memory).map(([name, value]) => [name, value.peakMiB])),
      rssAfterStartMiB: rssAfterStart,
      endRssMiB: Object.fromEntries(Object.entries(memory).map(([name, value]) => [name, value.endMiB])),
      coldStartMs,
      targets,
      information: information({ figures, memory, coldStartMs }),
      pass: targets.every((one) => one.pass),
    };
  } finally {
    worker?.stop();
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await databases?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The result as lines for a terminal: per database, every figure, every target with PASS or FAIL. */
export function format(result) {
  const databases = DATABASES.filter((db) => result[db]);
  const c = result.compared;
  return [
    `http (same run, ${c.concurrency} connections, median of ${c.rounds} interleaved rounds; ${databases.join(' and ')})`,
    ...databases.map((db) => `  gatekit (${db}): ${result[db].compared.gatekit}`),
    `  peer:        ${c.peer}`,
    `  bare:        ${c.bare}`,
    `  bare prisma: ${c.barePrisma}`,
    '  each cell: median req/s (median p50 and p99 latency; server CPU time per request)',
    '  ratios are of the medians; "rounds" are per-round figures (their spread is the noise); "by server CPU" is the',
    '  same ratio from CPU time per request, which other load on the machine disturbs less',
    ...databases.flatMap((db) => ['', ...formatDatabase(result[db])]),
    '',
    `  http targets: ${databases.map((db) => `${db} ${result[db].targets.filter((one) => one.pass).length}/${result[db].targets.length} pass`).join(', ')}`,
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
