// Where a generated app spends its CPU on one route: starts a built app with --cpu-prof, sends it
// a load, stops it, and prints the functions with the most self time (grouped by package).
//
//   node scripts/profile-app.mjs <app dir> <route> [requests]
//     route: healthz | me | members | organizations
//   PROFILE_OUT=me.json node scripts/profile-app.mjs …   also writes µs per request by function
//
// The app dir must be built and migrated (npm run build && npm run db:migrate). A user is
// registered through the API; for `members` an organization with 10,000 members is seeded with
// SQL. Used for docs/performance.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seedMembers } from './lib/seed-members.mjs';

const [dir, route = 'me', count = '4000'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/profile-app.mjs <app dir> <healthz|me|members|organizations> [requests]');
  process.exit(2);
}
const profileDir = mkdtempSync(path.join(tmpdir(), 'gatekit-profile-'));
const databaseFile = path.join(profileDir, 'app.db');
const port = 40000 + Math.floor(Math.random() * 2000);
const env = { ...process.env, DATABASE_URL: `file:${databaseFile}`, JWT_SECRET: 'p'.repeat(48), PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_MAX: '0', BCRYPT_COST: '12', NODE_ENV: 'production' };
await new Promise((resolve, reject) => {
  const migrate = spawn('npm', ['run', 'db:migrate'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  migrate.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`db:migrate exited ${code}`))));
});
const server = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, 'dist/server.js'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
const url = `http://127.0.0.1:${port}`;
for (let attempt = 0; ; attempt++) {
  try {
    if ((await fetch(`${url}/healthz`)).ok) break;
  } catch {
    if (attempt > 200) throw new Error('the app did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const registered = await (await fetch(`${url}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'profile@example.com', password: 'correct horse battery staple' }) })).json();
const { token, user } = registered;
let target = { healthz: '/healthz', me: '/api/auth/me', organizations: '/api/organizations' }[route];
if (route === 'members') {
  const created = await (await fetch(`${url}/api/organizations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'Profile Org' }) })).json();
  seedMembers(databaseFile, { organizationId: created.organization.id, userId: user.id });
  target = `/api/organizations/${created.organization.id}/members?limit=50`;
}

let sent = 0;
const worker = async () => {
  while (sent < Number(count)) {
    sent += 1;
    const response = await fetch(`${url}${target}`, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${target} answered ${response.status}`);
  }
};
await Promise.all(Array.from({ length: 8 }, worker));
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8'));
const intervals = profile.timeDeltas;
const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const node = byNode.get(profile.samples[i]);
  const { functionName, url: source } = node.callFrame;
  const where = source.includes('node_modules/') ? source.split('node_modules/').pop().split('/').slice(0, source.includes('node_modules/@') ? 2 : 1).join('/') : source.replace(/^.*\/(src|dist)\//, '$1/') || '(native)';
  const key = `${functionName || '(anonymous)'}  [${where}]`;
  self.set(key, (self.get(key) ?? 0) + (intervals[i] ?? 0));
}
const total = [...self.values()].reduce((sum, value) => sum + value, 0);
const byPackage = new Map();
for (const [key, micros] of self) {
  const where = key.slice(key.lastIndexOf('[') + 1, -1);
  byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
}
// PROFILE_OUT=<file>: also write each function's self time in µs per request (idle left out), to
// compare two routes: the difference is what one route costs more than the other.
if (process.env.PROFILE_OUT) {
  const perRequest = Object.fromEntries([...self].filter(([key]) => !key.startsWith('(idle)')).map(([key, micros]) => [key, micros / Number(count)]));
  writeFileSync(process.env.PROFILE_OUT, JSON.stringify(perRequest, null, 1));
}
console.log(`${route}: ${count} requests, ${(total / 1000).toFixed(0)} ms of samples (idle included), ${(total / Number(count)).toFixed(0)} µs per request`);
console.log('\nby package:');
for (const [where, micros] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${where}`);
console.log('\nby function:');
for (const [key, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
