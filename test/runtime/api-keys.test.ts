/**
 * API keys (issue 32) against running apps: the full fixture on SQLite and the orgs-postgresql
 * fixture on PostgreSQL (api-scenarios: the attack pass and two instances), and on PostgreSQL the
 * per-key rate limit shared by two instances through Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call, startAppProcess } from '../helpers/app-process.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { REDIS_HOST, REDIS_PORT, redisCommand } from '../helpers/redis.js';
import { useRunningApp } from '../helpers/running-app.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import { describeApiKeyScenarios } from './api-keys.scenarios.js';

const REDIS_DB = 11;
const BASE_ACCOUNT_ROUTES: [string, string, unknown?][] = [
  ['GET', '/api/auth/sessions'],
  ['POST', '/api/auth/sessions/revoke-others'],
  ['POST', '/api/auth/logout'],
  ['POST', '/api/auth/logout-all'],
  ['GET', '/api/auth/api-keys'],
  ['POST', '/api/auth/api-keys', { name: 'minted by a key' }],
  ['POST', '/api/auth/password/change', { currentPassword: 'correct horse battery staple', newPassword: 'a new passphrase here' }],
  ['POST', '/api/auth/email/verify/send'],
];

describe('SQLite (full fixture)', () => {
  let fixture: PreparedFixture;
  beforeAll(async () => {
    fixture = await sharedFixture('full');
  });
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'api-keys') });
  describeApiKeyScenarios({
    fixture: () => fixture,
    running,
    accountRoutes: [
      ...BASE_ACCOUNT_ROUTES,
      ['POST', '/api/auth/2fa/setup'],
      ['POST', '/api/auth/passkey/register/options'],
      ['GET', '/api/auth/passkeys'],
      ['GET', '/api/auth/identities'],
      ['POST', '/api/auth/github/link', {}],
    ],
  });
});

describe('PostgreSQL (orgs-postgresql fixture)', () => {
  let fixture: PreparedFixture;
  let database: TempPgSchema;
  beforeAll(async () => {
    database = await createTempPgSchema();
    fixture = await sharedFixture('orgs-postgresql', database.url);
    fixture.run('db:migrate');
  });
  afterAll(async () => {
    await database?.drop();
  });
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => database.url });
  describeApiKeyScenarios({ fixture: () => fixture, running, accountRoutes: BASE_ACCOUNT_ROUTES });

  it("with REDIS_URL, two instances share each key's API_KEY_RATE_LIMIT", async () => {
    expect(await redisCommand(REDIS_DB, 'FLUSHDB')).toBe('+OK');
    const env = running.env({ API_KEY_RATE_LIMIT: '4', REDIS_URL: `redis://${REDIS_HOST}:${REDIS_PORT}/${REDIS_DB}` });
    const [first, second] = await Promise.all([startAppProcess(fixture.dir, env), startAppProcess(fixture.dir, env)]);
    try {
      const owner = await register(running, { password: 'correct horse battery staple' });
      const made = await call(first.url, '/api/auth/api-keys', { token: owner.token, json: { name: 'busy' } });
      const statuses = [];
      for (const instance of [first, second, first, second, first, second]) {
        statuses.push((await call(instance.url, '/api/auth/me', { token: made.body.key })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
