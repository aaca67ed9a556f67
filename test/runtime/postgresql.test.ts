import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAppProcess } from '../helpers/app-process.js';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import { describeJwtApp, JWT_SECRET } from './jwt-app.scenarios.js';
import { projectChecks } from './project-checks.js';

let fixture: PreparedFixture;
let database: TempPgSchema;
beforeAll(async () => {
  database = await createTempPgSchema();
  fixture = prepareFixture('postgresql', database.url);
});
afterAll(async () => {
  await database?.drop();
});

describe('postgresql fixture (jwt, PostgreSQL): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'postgresql', databaseUrl: () => database.url });
});

describe('postgresql fixture (jwt, PostgreSQL): the running server', () => {
  describeJwtApp({ fixture: () => fixture, databaseUrl: () => database.url, redisDb: 14 });
});

describe('postgresql fixture: a database that is down', () => {
  it('answers /readyz and database routes with 503 SERVICE_UNAVAILABLE and keeps running', async () => {
    const app = await startAppProcess(fixture.dir, {
      JWT_SECRET,
      BCRYPT_COST: '4',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/unreachable',
    });
    try {
      const ready = await call(app.url, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.error.code).toBe('SERVICE_UNAVAILABLE');
      const login = await call(app.url, '/api/auth/login', { json: { email: 'a@example.com', password: 'whatever passphrase' } });
      expect(login.status).toBe(503);
      expect(login.body).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
      expect((await call(app.url, '/healthz')).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
