import path from 'node:path';
import { describe, vi } from 'vitest';
import { describeOrgsApp } from './orgs.scenarios.js';
import { sqliteFixtureWithChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

describe('orgs-sqlite fixture (jwt + orgs, SQLite)', () => {
  const fixture = sqliteFixtureWithChecks('orgs-sqlite');
  describe('the running server', () => {
    describeOrgsApp({ fixture, db: 'sqlite', databaseUrl: () => `file:${path.join(fixture().dir, 'dev.db')}` });
  });
});
