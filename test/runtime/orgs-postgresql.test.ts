import { afterAll, beforeAll, describe, vi } from 'vitest';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import { describeOrgsApp } from './orgs.scenarios.js';
import { projectChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

let fixture: PreparedFixture;
let database: TempPgSchema;
beforeAll(async () => {
  database = await createTempPgSchema();
  fixture = prepareFixture('orgs-postgresql', database.url);
});
afterAll(async () => {
  await database?.drop();
});
const databaseUrl = () => database.url;

describe('orgs-postgresql fixture (jwt + orgs, PostgreSQL): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'postgresql', databaseUrl });
});

describe('orgs-postgresql fixture (jwt + orgs, PostgreSQL): the running server', () => {
  describeOrgsApp({ fixture: () => fixture, db: 'postgresql', databaseUrl });
});
