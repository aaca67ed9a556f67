import { execFile } from 'node:child_process';
import { childEnv } from './app-process.js';
import type { PreparedFixture } from './fixtures.js';

/**
 * The generated app's own `npm run admin -- grant|revoke <email>` against `databaseUrl`: the one way
 * to make the first admin (CONTRACT B.15). Resolves to what it printed; rejects with its output when
 * it exits non-zero.
 *
 * It runs without blocking the test's event loop: the command takes seconds, longer than the app's
 * keep-alive timeout (5 s), and a blocked loop never hears the app close the idle connection, so the
 * next request went out on a socket the app had closed ("other side closed").
 */
export function runAdminCommand(fixture: PreparedFixture, databaseUrl: string, command: 'grant' | 'revoke', email: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['run', '--silent', 'admin', '--', command, email],
      { cwd: fixture.dir, env: childEnv({ DATABASE_URL: databaseUrl }), encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`npm run admin -- ${command} ${email} exited ${error.code}:\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
