import { afterAll, beforeAll, describe, vi } from 'vitest';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import { describeHostedBasics, useHostedApp } from './hosted.scenarios.js';
import { projectChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

let fixture: PreparedFixture;
let database: TempPgSchema;
beforeAll(async () => {
  database = await createTempPgSchema();
  fixture = prepareFixture('hosted-postgresql', database.url);
});
afterAll(async () => {
  await database?.drop();
});
const databaseUrl = () => database.url;

describe('hosted-postgresql fixture (jwt, the four hosted services, totp; PostgreSQL): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'postgresql', databaseUrl });
});

describe('hosted-postgresql fixture: the running server', () => {
  describeHostedBasics(useHostedApp({ fixture: () => fixture, databaseUrl }));
});
