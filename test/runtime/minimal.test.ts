import path from 'node:path';
import { beforeAll, describe } from 'vitest';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { describeJwtApp } from './jwt-app.scenarios.js';
import { projectChecks } from './project-checks.js';

let fixture: PreparedFixture;
beforeAll(() => {
  fixture = prepareFixture('minimal');
});
const databaseUrl = () => `file:${path.join(fixture.dir, 'dev.db')}`;

describe('minimal fixture (jwt, SQLite): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'sqlite', databaseUrl });
});

describe('minimal fixture (jwt, SQLite): the running server', () => {
  describeJwtApp({ fixture: () => fixture, databaseUrl, redisDb: 13 });
});
