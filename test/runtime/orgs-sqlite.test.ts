import path from 'node:path';
import { beforeAll, describe, vi } from 'vitest';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { describeOrgsApp } from './orgs.scenarios.js';
import { projectChecks } from './project-checks.js';

// The generated app's own suite (npm test) and its type-check take longer than the default 30 s
// on two cores while other suites run.
vi.setConfig({ testTimeout: 120_000 });

let fixture: PreparedFixture;
beforeAll(() => {
  fixture = prepareFixture('orgs-sqlite');
});
const databaseUrl = () => `file:${path.join(fixture.dir, 'dev.db')}`;

describe('orgs-sqlite fixture (jwt + orgs, SQLite): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'sqlite', databaseUrl });
});

describe('orgs-sqlite fixture (jwt + orgs, SQLite): the running server', () => {
  describeOrgsApp({ fixture: () => fixture, db: 'sqlite', databaseUrl });
});
