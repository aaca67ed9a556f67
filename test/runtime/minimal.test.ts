import path from 'node:path';
import { describe } from 'vitest';
import { describeJwtApp } from './jwt-app.scenarios.js';
import { sqliteFixtureWithChecks } from './project-checks.js';

describe('minimal fixture (jwt, SQLite)', () => {
  const fixture = sqliteFixtureWithChecks('minimal');
  describe('the running server', () => {
    describeJwtApp({ fixture, databaseUrl: () => `file:${path.join(fixture().dir, 'dev.db')}`, redisDb: 13 });
  });
});
