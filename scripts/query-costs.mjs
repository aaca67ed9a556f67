// What one database read costs a generated app, layer by layer, in CPU microseconds: the
// SQLite driver alone, Prisma's raw query, the hot routes' reads as Prisma queries
// (the guard's, the membership's, a page of 51 members) and as the app runs them now, SQL through
// Prisma's adapter (src/db/sql-reads.ts on src/db/sqlite-adapter.ts). No HTTP: the floor under each route.
//
//   node scripts/query-costs.mjs <app dir> [iterations]
//
// The app dir must be built (npm run build) with the orgs module. A database is made with
// db:migrate in a temporary folder and seeded with SQL: one user with an access token, and an
// organization of 10,000 members. Used for docs/performance.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, iterationsArgument = '3000'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/query-costs.mjs <app dir> [iterations]');
  process.exit(2);
}
const iterations = Number(iterationsArgument);
const appDir = path.resolve(dir);
const databaseFile = path.join(mkdtempSync(path.join(tmpdir(), 'gatekit-costs-')), 'app.db');
const url = `file:${databaseFile}`;
const migrated = spawnSync('npm', ['run', 'db:migrate'], { cwd: appDir, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'inherit'] });
if (migrated.status !== 0) throw new Error(`db:migrate exited ${migrated.status}`);

const appRequire = createRequire(path.join(appDir, 'package.json'));
const Database = appRequire('libsql');
const { createDatabase } = await import(pathToFileURL(path.join(appDir, 'dist/db/client.js')).href);

const now = new Date().toISOString();
const future = new Date(Date.now() + 3_600_000).toISOString();
const seed = new Database(databaseFile);
seed.exec('BEGIN');
const addUser = seed.prepare('INSERT INTO User (id, email, emailVerified, twoFactorEnabled, createdAt, updatedAt) VALUES (?, ?, 1, 0, ?, ?)');
const addMember = seed.prepare('INSERT INTO OrgMember (id, organizationId, userId, role, joinedAt) VALUES (?, ?, ?, ?, ?)');
seed.prepare('INSERT INTO Organization (id, name, slug, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?)').run('org', 'Org', 'org', now, now);
for (let i = 0; i < 10_000; i++) {
  addUser.run(`user-${i}`, `member-${i}@example.com`, now, now);
  addMember.run(`member-${String(i).padStart(6, '0')}`, 'org', `user-${i}`, i === 0 ? 'owner' : 'member', now);
}
seed.prepare('INSERT INTO AccessToken (id, userId, expiresAt, createdAt) VALUES (?, ?, ?, ?)').run('token', 'user-0', future, now);
seed.exec('COMMIT');

const { prisma, sql } = createDatabase(url);
const driver = new Database(databaseFile);
const preparedUser = driver.prepare('SELECT * FROM User WHERE id = ?');

const guardQuery = () =>
  prisma.user.findFirst({ where: { id: 'user-0', accessTokens: { some: { id: 'token', revokedAt: null, expiresAt: { gt: new Date() } } } } });
const cases = {
  'libsql driver, prepared statement, one user': async () => preparedUser.get('user-0'),
  'Prisma $queryRaw SELECT 1': () => prisma.$queryRaw`SELECT 1`,
  'Prisma user.findUnique by id': () => prisma.user.findUnique({ where: { id: 'user-0' } }),
  "Prisma, the guard's query (user with a live token)": guardQuery,
  "Prisma, the membership's query": () => prisma.orgMember.findUnique({ where: { userId_organizationId: { userId: 'user-0', organizationId: 'org' } } }),
  'Prisma, a page of 51 members with their users': () =>
    prisma.orgMember.findMany({ where: { organizationId: 'org' }, include: { user: { select: { email: true, name: true } } }, orderBy: { id: 'asc' }, take: 51 }),
  // The same three reads as the generated app runs them (guard.ts, membership.ts, members.service.ts).
  "SQL through the adapter, the guard's read": () =>
    sql.rows(
      `SELECT u."id", u."email", u."name", u."image", u."emailVerified", u."twoFactorEnabled", u."createdAt", u."updatedAt" FROM {User} u
       WHERE u."id" = ? AND EXISTS (SELECT 1 FROM {AccessToken} t WHERE t."id" = ? AND t."userId" = u."id" AND t."revokedAt" IS NULL AND t."expiresAt" > ?)`,
      ['user-0', 'token', new Date()],
    ),
  "SQL through the adapter, the membership's read": () =>
    sql.rows('SELECT "id", "organizationId", "userId", "role", "joinedAt" FROM {OrgMember} WHERE "userId" = ? AND "organizationId" = ?', ['user-0', 'org']),
  'SQL through the adapter, a page of 51 members, as one JSON text (what the app runs)': () =>
    sql.manyRows(
      `SELECT m."id", m."userId", u."email", u."name", m."role", m."joinedAt" FROM {OrgMember} m JOIN {User} u ON u."id" = m."userId"
       WHERE m."organizationId" = ? AND m."id" > ? ORDER BY m."id" LIMIT ?`,
      { columns: ['id', 'userId', 'email', 'name', 'role', 'joinedAt'], orderBy: 'id' },
      ['org', '', 51],
    ),
  'SQL through the adapter, a page of 51 members, row by row': () =>
    sql.rows(
      `SELECT m."id", m."userId", u."email", u."name", m."role", m."joinedAt" FROM {OrgMember} m JOIN {User} u ON u."id" = m."userId"
       WHERE m."organizationId" = ? AND m."id" > ? ORDER BY m."id" LIMIT ?`,
      ['org', '', 51],
    ),
};

const results = [];
for (const [name, run] of Object.entries(cases)) {
  const checked = await run();
  if (checked == null || (Array.isArray(checked) && checked.length === 0)) throw new Error(`${name} found nothing`);
  for (let i = 0; i < Math.min(500, iterations); i++) await run();
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await run();
  const used = process.cpuUsage(before);
  results.push({ name, cpuUsPerCall: Math.round((used.user + used.system) / iterations) });
}
await prisma.$disconnect();
driver.close();

const width = Math.max(...results.map((result) => result.name.length));
console.log(`${iterations} calls each, one after another, CPU µs per call (user + system):`);
for (const { name, cpuUsPerCall } of results) console.log(`  ${name.padEnd(width)}  ${String(cpuUsPerCall).padStart(5)}`);
