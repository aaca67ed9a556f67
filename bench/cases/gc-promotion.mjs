// Part of why the members page's p99 sits at issue 31's line on SQLite: how much of what a query
// allocates outlives two young-generation collections ("scavenges") and is promoted to the old
// generation. Promoted data lengthens every scavenge and brings on old-generation collections
// (mark-compact, 10 to 30 ms in the server). No target: it explains one (docs/performance.md,
// "4.1, where the SQLite tail comes from").
//
// The generated SQLite app (the same prepared app as bench/cases/http.mjs) with one organization of
// 60 members in a scratch file. Each mode runs one statement 6,000 times in a row, after 500 to warm
// up, in its own `node --trace-gc-nvp` process, and counts V8's own figures for those 6,000:
//   prismaQueryRaw    the members page's statement through the app's Prisma client ($queryRaw, 51 rows)
//   prismaFindFirst   the guard's read through it (findFirst: the user with a live session, 1 row)
//   adapterQueryRaw   the members statement through Prisma's libSQL adapter alone (its queryRaw)
//   adapterLazy       the same, returned as a lazy thenable of the shape Prisma's client returns:
//                     the query starts at the first then() and its promise is kept in the closure
//   adapterLazyWithAccessor  the same thenable with one getter added to it, as Prisma 7.10's has
//                     (`get spec()`): the only difference between these two modes
//   libsqlExecute     the members statement through @libsql/client alone (execute)
//
//   node bench/cases/gc-promotion.mjs          (standalone)
//   BENCH_ONLY=gc-promotion npm run bench      (stored in bench/results.json)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareApp } from '../lib/apps.mjs';
import { baseEnv, round1, round2, sh } from '../lib/servers.mjs';

const MODES = ['prismaQueryRaw', 'prismaFindFirst', 'adapterQueryRaw', 'adapterLazy', 'adapterLazyWithAccessor', 'libsqlExecute'];
const CALLS = 6_000;
const WARMUP = 500;
const MEMBERS = 60;
const PAGE = 50;
const MEMBERS_SQL = `SELECT m."id", m."organizationId", m."userId", m."role", m."joinedAt", u."email", u."name"
  FROM "OrgMember" m JOIN "User" u ON u."id" = m."userId"
  WHERE m."organizationId" = ? ORDER BY m."id" LIMIT ?`;
const START = 'gc-promotion: start';
const END = 'gc-promotion: end';

export async function run({ root }) {
  const app = prepareApp(root, 'sqlite');
  const work = path.join(tmpdir(), `gatekit-bench-gc-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const file = path.join(work, 'app.db');
    const env = { ...baseEnv(), DATABASE_URL: `file:${file}`, JWT_SECRET: randomBytes(48).toString('base64') };
    sh('npm', ['run', 'db:migrate'], { cwd: app.dir, env });
    seed(createRequire(path.join(root, 'package.json'))('better-sqlite3'), file);
    const modes = {};
    for (const mode of MODES) modes[mode] = measure(app.dir, env, mode);
    return {
      compared: { app: path.relative(root, app.dir), calls: CALLS, warmUp: WARMUP, rowsPerPage: PAGE + 1, node: process.version },
      modes,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One organization, MEMBERS users and their memberships, and a live session of the first user. */
function seed(Database, file) {
  const db = new Database(file);
  try {
    // DateTime columns as Prisma's libSQL adapter writes them: ISO 8601 text.
    const now = new Date().toISOString();
    db.transaction(() => {
      db.prepare('INSERT INTO "Organization" ("id", "name", "slug", "updatedAt") VALUES (?, ?, ?, ?)').run('org', 'Org', 'org', now);
      for (let i = 0; i < MEMBERS; i++) {
        db.prepare('INSERT INTO "User" ("id", "email", "name", "updatedAt") VALUES (?, ?, ?, ?)').run(
          `user-${i}`,
          `user-${i}@example.com`,
          `Member ${i}`,
          now,
        );
        db.prepare('INSERT INTO "OrgMember" ("id", "organizationId", "userId", "role") VALUES (?, ?, ?, ?)').run(
          `member-${String(i).padStart(3, '0')}`,
          'org',
          `user-${i}`,
          'member',
        );
      }
      const inADay = new Date(Date.now() + 86_400_000).toISOString();
      db.prepare('INSERT INTO "Session" ("id", "userId", "method", "expiresAt", "maxExpiresAt") VALUES (?, ?, ?, ?, ?)').run(
        'session-0',
        'user-0',
        'password',
        inADay,
        inADay,
      );
    })();
  } finally {
    db.close();
  }
}

/** Runs one mode in its own traced process and sums V8's figures between its start and end marks. */
function measure(appDir, env, mode) {
  const child = spawnSync(process.execPath, ['--trace-gc-nvp', fileURLToPath(import.meta.url), '--child', mode], {
    cwd: appDir,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`gc-promotion ${mode} failed (${child.status}):\n${child.stderr.slice(-4000)}`);
  const lines = child.stdout.split('\n');
  const measured = lines.slice(
    lines.indexOf(START) + 1,
    lines.findIndex((line) => line.startsWith(END)),
  );
  const field = (line, name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
  const scavenges = measured.filter((line) => line.includes(' gc=s '));
  const majors = measured.filter((line) => line.includes(' gc=mc '));
  const usPerCall = Number(
    lines
      .find((line) => line.startsWith(END))
      .split(' ')
      .at(-1),
  );
  const promoted = scavenges.reduce((sum, line) => sum + field(line, 'promoted'), 0);
  return {
    usPerCall: Math.round(usPerCall),
    scavenges: scavenges.length,
    promotedMiB: round1(promoted / 1024 / 1024),
    promotedBytesPerCall: Math.round(promoted / CALLS),
    scavengePauseMeanMs: round2(scavenges.reduce((sum, line) => sum + field(line, 'pause'), 0) / Math.max(1, scavenges.length)),
    oldGenerationCollections: majors.length,
    oldGenerationPauseMaxMs: round1(Math.max(0, ...majors.map((line) => field(line, 'pause')))),
  };
}

/** The child: builds the mode's caller from the app's own packages, then calls it in a loop. */
async function child(mode) {
  const appDir = process.cwd();
  const fromApp = (specifier) => import(pathToFileURL(createRequire(path.join(appDir, 'package.json')).resolve(specifier)).href);
  const url = process.env.DATABASE_URL;
  const args = ['org', PAGE + 1];
  let call;
  if (mode === 'prismaQueryRaw' || mode === 'prismaFindFirst') {
    const { createPrismaClient } = await import(pathToFileURL(path.join(appDir, 'dist/db/client.js')).href);
    const prisma = createPrismaClient(url);
    // MEMBERS_SQL as a tagged template's strings, so $queryRaw sends the same statement as the other modes.
    const strings = MEMBERS_SQL.split('?');
    const template = Object.assign([...strings], { raw: strings });
    call =
      mode === 'prismaQueryRaw'
        ? () => prisma.$queryRaw(template, ...args)
        : () => prisma.user.findFirst({ where: { id: 'user-0', sessions: { some: { id: 'session-0', expiresAt: { gt: new Date() } } } } });
  } else if (mode.startsWith('adapter')) {
    const { PrismaLibSql } = await fromApp('@prisma/adapter-libsql');
    const adapter = await new PrismaLibSql({ url, intMode: 'bigint' }).connect();
    const argTypes = [
      { scalarType: 'string', arity: 'scalar' },
      { scalarType: 'int', arity: 'scalar' },
    ];
    const query = () => adapter.queryRaw({ sql: MEMBERS_SQL, args, argTypes });
    call = mode === 'adapterQueryRaw' ? query : () => lazyThenable(query, mode === 'adapterLazyWithAccessor');
  } else if (mode === 'libsqlExecute') {
    const { createClient } = await fromApp('@libsql/client');
    const client = createClient({ url, intMode: 'bigint' });
    call = () => client.execute({ sql: MEMBERS_SQL, args });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  // Each mode reads what was seeded: the first page plus one row, or the user with the live session.
  const first = await call();
  const rows = mode === 'prismaFindFirst' ? (first?.id === 'user-0' ? 1 : 0) : (first.rows ?? first).length;
  const expected = mode === 'prismaFindFirst' ? 1 : PAGE + 1;
  if (rows !== expected) throw new Error(`${mode}: ${rows} seeded rows came back, not ${expected}`);
  for (let i = 0; i < WARMUP; i++) await call();
  console.log(START);
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  console.log(`${END} ${mode} ${((performance.now() - started) * 1000) / CALLS}`);
}

/**
 * A thenable that starts `start` at its first then() and keeps the promise for later ones, as
 * Prisma's client returns from every query method. `withAccessor` adds a getter to the same object.
 */
function lazyThenable(start, withAccessor) {
  let promise;
  const started = () => {
    promise ??= start();
    return promise;
  };
  // biome-ignore lint/suspicious/noThenProperty: the object under test is a thenable
  if (!withAccessor) return { then: (onFulfilled, onRejected) => started().then(onFulfilled, onRejected) };
  return {
    get start() {
      return start;
    },
    // biome-ignore lint/suspicious/noThenProperty: the object under test is a thenable
    then: (onFulfilled, onRejected) => started().then(onFulfilled, onRejected),
  };
}

/** The result as lines for a terminal. */
export function format(result) {
  const c = result.compared;
  return [
    `gc-promotion (sqlite; ${c.calls} calls in a row after ${c.warmUp}, one process per mode, V8's --trace-gc-nvp; no target)`,
    `  ${'mode'.padEnd(24)} ${'µs/call'.padStart(8)} ${'scavenges'.padStart(10)} ${'promoted'.padStart(10)} ${'per call'.padStart(9)} ${'scavenge'.padStart(9)} ${'old-gen GCs'.padStart(12)} ${'longest'.padStart(8)}`,
    ...Object.entries(result.modes).map(
      ([mode, m]) =>
        `  ${mode.padEnd(24)} ${String(m.usPerCall).padStart(8)} ${String(m.scavenges).padStart(10)} ${`${m.promotedMiB} MiB`.padStart(10)} ${`${m.promotedBytesPerCall} B`.padStart(9)} ${`${m.scavengePauseMeanMs} ms`.padStart(9)} ${String(m.oldGenerationCollections).padStart(12)} ${`${m.oldGenerationPauseMaxMs} ms`.padStart(8)}`,
    ),
  ];
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]);
} else if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const result = await run({ root });
  console.log(format(result).join('\n'));
  console.log(JSON.stringify(result, null, 2));
}
