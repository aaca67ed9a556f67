import { describe, vi } from 'vitest';
import { describeOrgsApp } from './orgs.scenarios.js';
import { postgresFixtureWithChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

describe('orgs-postgresql fixture (jwt + magic-link + orgs, PostgreSQL)', () => {
  const { fixture, databaseUrl } = postgresFixtureWithChecks('orgs-postgresql');
  describe('the running server', () => {
    describeOrgsApp({ fixture, db: 'postgresql', databaseUrl });
  });
});
