/**
 * Passkeys (CONTRACT B.13) on the full fixture (SQLite, with the password, the magic link and
 * TOTP): the generated server as its own process, driven over HTTP by the software authenticator.
 */
import { beforeAll, describe, vi } from 'vitest';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { tokenIssuedAgo } from '../helpers/old-token.js';
import { useRunningApp } from '../helpers/running-app.js';
import { openSqlite, sqliteDate } from '../helpers/sqlite-file.js';
import { describePasskeyScenarios, type AppDatabase } from './passkey.scenarios.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 1_200_000 });

let fixture: PreparedFixture;
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'passkey') });

const sqlite: AppDatabase = {
  async query<Row>(sql: string, values: unknown[] = []) {
    const db = openSqlite(running.databaseUrl);
    try {
      const statement = db.prepare(sql.replace(/\$\d+/g, '?'));
      if (statement.reader) return statement.all(...values) as Row[];
      statement.run(...values);
      return [];
    } finally {
      db.close();
    }
  },
  date: sqliteDate,
};

describe('passkeys on the full fixture (SQLite)', () => {
  describePasskeyScenarios({
    fixture: () => fixture,
    running,
    db: () => sqlite,
    totp: true,
    magicLink: true,
    oldToken: (userId, minutesAgo) => tokenIssuedAgo(running.databaseUrl, userId, minutesAgo),
  });
});
