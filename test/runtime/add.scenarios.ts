import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { childEnv, call, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { uniqueEmail } from '../helpers/accounts.js';
import { ROOT, runCli, type CliResult } from '../helpers/run-cli.js';

export { treeHash } from '../helpers/tree-hash.js';

export const PASSWORD = 'correct horse battery staple';
export const AUDIT_LOG_PACK = path.join(ROOT, 'examples/packs/audit-log');
export const KEYCLOAK_PACK = path.join(ROOT, 'examples/packs/keycloak');

/** Runs a script or command of the generated app, failing with its output. */
export function inApp(dir: string, args: string[], env: Record<string, string> = {}): string {
  const result = spawnSync('npm', args, { cwd: dir, env: childEnv(env), encoding: 'utf8', timeout: 900_000 });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${dir}:\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`);
  return result.stdout;
}

export function add(dir: string, args: string[], env: Record<string, string> = {}): CliResult {
  return runCli(['add', ...args, '--cwd', dir], { env });
}

/** Changes a file the way a user would, checking that the text to change is there. */
export function edit(dir: string, file: string, from: string, to: string): string {
  const full = path.join(dir, file);
  const text = readFileSync(full, 'utf8');
  expect(text, `${file} contains ${from}`).toContain(from);
  const edited = text.replace(from, to);
  writeFileSync(full, edited);
  return edited;
}

/** The user's own route, added to src/app.ts away from the lines add changes. */
export const APP_EDIT = {
  from: '  applySecurity(app, config);\n',
  to: "  applySecurity(app, config);\n  // Our own route, added by hand.\n  app.get('/api/hello', (_req, res) => {\n    res.json({ hello: 'world' });\n  });\n",
};

export async function withApp<T>(dir: string, env: Record<string, string>, work: (app: AppProcess) => Promise<T>): Promise<T> {
  const app = await startAppProcess(dir, env);
  try {
    return await work(app);
  } finally {
    await app.stop();
  }
}

export async function registerUser(app: AppProcess): Promise<{ email: string; token: string; refreshToken: string }> {
  const email = uniqueEmail('early');
  const reply = await call(app.url, '/api/auth/register', { json: { email, password: PASSWORD, name: 'Early user' } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { email, token: reply.body.token, refreshToken: reply.body.refreshToken };
}

export async function signIn(app: AppProcess, email: string): Promise<string> {
  const reply = await call(app.url, '/api/auth/login', { json: { email, password: PASSWORD } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.token;
}

export function migrationFolders(dir: string): string[] {
  return readdirSync(path.join(dir, 'prisma/migrations')).filter((name) => existsSync(path.join(dir, 'prisma/migrations', name, 'migration.sql'))).sort();
}

export function migrationHashes(dir: string): Record<string, string> {
  return Object.fromEntries(
    migrationFolders(dir).map((name) => [name, createHash('sha256').update(readFileSync(path.join(dir, 'prisma/migrations', name, 'migration.sql'))).digest('hex')]),
  );
}
