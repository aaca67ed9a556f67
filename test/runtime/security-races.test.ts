/**
 * Issue 31's and issue 33's races between a sign-in and a revocation of its user (sign-in-races.scenarios.ts),
 * with the production bcrypt cost, on SQLite (the full fixture) and on PostgreSQL (the
 * orgs-postgresql fixture: jwt + magic-link), each app running as its own process.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { useRunningApp } from '../helpers/running-app.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import { createAdmin } from './admin.scenarios.js';
import { describeSignInRaces } from './sign-in-races.scenarios.js';

const PRODUCTION_COST = { BCRYPT_COST: '12' };

describe('SQLite (full fixture)', () => {
  let fixture: PreparedFixture;
  beforeAll(async () => {
    fixture = await sharedFixture('full');
  });
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'security-races'), env: () => PRODUCTION_COST });
  describeSignInRaces(() => running, () => createAdmin({ fixture: () => fixture, running }));
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
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => database.url, env: () => PRODUCTION_COST });
  describeSignInRaces(() => running, () => createAdmin({ fixture: () => fixture, running }));
});
