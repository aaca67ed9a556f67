import { npmAsync, type PreparedFixture } from './fixtures.js';

/**
 * The generated app's own `npm run admin -- grant|revoke <email>` against `databaseUrl`: the one way
 * to make the first admin (CONTRACT B.15). Resolves to what it printed; rejects with its output when
 * it exits non-zero. It runs without blocking the test's event loop (npmAsync says why).
 */
export function runAdminCommand(
  fixture: PreparedFixture,
  databaseUrl: string,
  command: 'grant' | 'revoke',
  email: string,
): Promise<string> {
  return npmAsync(
    fixture.dir,
    ['run', '--silent', 'admin', '--', command, email],
    { DATABASE_URL: databaseUrl },
    `npm run admin -- ${command} ${email}`,
  );
}
