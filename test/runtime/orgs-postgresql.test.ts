import { describe, vi } from 'vitest';
import { useRunningApp } from '../helpers/running-app.js';
import { describeAdminScenarios } from './admin.scenarios.js';
import { describeOrgsApp } from './orgs.scenarios.js';
import { postgresFixtureWithChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

describe('orgs-postgresql fixture (jwt + magic-link + orgs + admin, PostgreSQL)', () => {
  const { fixture, databaseUrl } = postgresFixtureWithChecks('orgs-postgresql');
  describe('the running server', () => {
    describeOrgsApp({ fixture, db: 'postgresql', databaseUrl });
  });
  describe('account deletion and export, and the operators API, with two instances on one database', () => {
    const running = useRunningApp({ fixture, databaseUrl });
    describeAdminScenarios({ fixture, running, twoInstances: true });
  });
});
