import pg from 'pg';
import { afterAll, beforeAll, vi } from 'vitest';
import { parsePostgresUrl, TEST_POSTGRES_URL } from '../helpers/schema-engine.js';
import { describeUpgrade } from './upgrade.scenarios.js';

// Installs, builds and runs the app's own suite twice (before and after the upgrade).
vi.setConfig({ testTimeout: 600_000, hookTimeout: 900_000 });

const database = `gatekit_upgrade_${process.pid}_${Date.now().toString(36)}`;
const server = parsePostgresUrl(TEST_POSTGRES_URL).connectionString;
const url = new URL(server);
url.pathname = `/${database}`;
const databaseUrl = url.toString();

async function query<T = unknown>(connectionString: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await query(server, `CREATE DATABASE "${database}"`);
});

afterAll(async () => {
  await query(server, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
});

describeUpgrade({
  db: 'postgresql',
  databaseUrl: () => databaseUrl,
  verifyEmail: async (_dir, email) => {
    await query(databaseUrl, 'UPDATE "User" SET "emailVerified" = true WHERE email = $1', [email]);
  },
  lastSignInAt: async (_dir, email) => (await query<{ lastSignInAt: unknown }>(databaseUrl, 'SELECT "lastSignInAt" FROM "User" WHERE email = $1', [email]))[0]!.lastSignInAt,
});
