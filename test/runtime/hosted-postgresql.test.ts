import { describe, vi } from 'vitest';
import { describeHostedBasics, useHostedApp } from './hosted.scenarios.js';
import { postgresFixtureWithChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

describe('hosted-postgresql fixture (jwt, the four hosted services, totp; PostgreSQL)', () => {
  const setup = postgresFixtureWithChecks('hosted-postgresql');
  describe('the running server', () => {
    describeHostedBasics(useHostedApp(setup));
  });
});
