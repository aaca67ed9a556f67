import { spawnSync } from 'node:child_process';
import { childEnv } from './app-process.js';
import type { PreparedFixture } from './fixtures.js';

/**
 * The generated app's own `npm run admin -- grant|revoke <email>` against `databaseUrl`: the one way
 * to make the first admin (CONTRACT B.15). Returns what it printed; throws with its output when it
 * exits non-zero.
 */
export function runAdminCommand(fixture: PreparedFixture, databaseUrl: string, command: 'grant' | 'revoke', email: string): string {
  const result = spawnSync('npm', ['run', '--silent', 'admin', '--', command, email], {
    cwd: fixture.dir,
    env: childEnv({ DATABASE_URL: databaseUrl }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`npm run admin -- ${command} ${email} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}
