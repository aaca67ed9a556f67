#!/usr/bin/env node
// Cold start of a built app, as `npm run bench` measures it: spawn of its `npm start` (without npm) to the
// first 200 on /healthz, n times (default 7), on a migrated SQLite database. Prints each run and the median.
// Usage: node scripts/cold-start.mjs <app dir> [n]
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { baseEnv, startCommand, startServer } from '../bench/cases/http.mjs';

const [dir, count = '7'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/cold-start.mjs <app dir> [n]');
  process.exit(2);
}
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-cold-start-'));
const env = {
  ...baseEnv(),
  DATABASE_URL: `file:${path.join(work, 'app.db')}`,
  JWT_SECRET: randomBytes(48).toString('base64'),
  TOTP_ENCRYPTION_KEY: randomBytes(48).toString('base64'),
};
try {
  execFileSync('npm', ['run', 'db:migrate'], { cwd: dir, env, stdio: 'ignore' });
  const runs = [];
  for (let i = 0; i < Number(count); i++) {
    const server = await startServer({ name: 'app', cwd: path.resolve(dir), ...startCommand(dir), env, readyPath: '/healthz' });
    runs.push(Math.round(server.coldStartMs));
    await server.stop();
  }
  const sorted = [...runs].sort((a, b) => a - b);
  console.log(`cold start (ms): ${runs.join(', ')}; median ${sorted[Math.floor(sorted.length / 2)]}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
