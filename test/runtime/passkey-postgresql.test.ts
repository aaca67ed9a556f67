/**
 * Passkeys (CONTRACT B.13) on PostgreSQL: the hosted-postgresql fixture (password, passkeys, the
 * hosted services and TOTP, no magic link, so a passkey can be the last way to sign in).
 */
import pg from 'pg';
import { describe, vi } from 'vitest';
import { parsePostgresUrl } from '../helpers/schema-engine.js';
import { useRunningApp } from '../helpers/running-app.js';
import { describePasskeyScenarios, type AppDatabase } from './passkey.scenarios.js';
import { postgresFixtureWithChecks } from './project-checks.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 1_200_000 });

describe('passkeys on hosted-postgresql (PostgreSQL)', () => {
  const setup = postgresFixtureWithChecks('hosted-postgresql');
  const running = useRunningApp({ fixture: setup.fixture, databaseUrl: setup.databaseUrl });

  const postgres: AppDatabase = {
    async query<Row>(sql: string, values: unknown[] = []) {
      const { connectionString, schema } = parsePostgresUrl(setup.databaseUrl());
      const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    date: (ms) => new Date(ms),
  };

  describePasskeyScenarios({ fixture: setup.fixture, running, db: () => postgres, totp: true, magicLink: false });
});
