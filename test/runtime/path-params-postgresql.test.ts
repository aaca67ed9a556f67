/**
 * Issue 22 on PostgreSQL, which refuses text with a NUL byte where SQLite stores it: a NUL in any
 * path parameter of every route (finding 5a), a fuzz pass over the routes with path parameters,
 * and the cleanup of expired rows run by two instances at once (finding 6). The orgs-postgresql
 * fixture has the organization routes, hosted-postgresql the identities, two-factor and Auth.js.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call, startAppProcess } from '../helpers/app-process.js';
import { sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { createFuzzer, sendFuzzRequest, type Route } from '../helpers/fuzz-requests.js';
import { expectErrorShape, nulPathProbes } from '../helpers/path-probes.js';
import { expectCleanLogs, useRunningApp, type RunningApp } from '../helpers/running-app.js';
import { createTempPgSchema, parsePostgresUrl, type TempPgSchema } from '../helpers/schema-engine.js';

const PASSWORD = 'correct horse battery staple';
const FUZZ_REQUESTS = 600;
const SEED = Number(process.env.GATEKIT_FUZZ_SEED ?? 20261126);

/** The fixture on a fresh PostgreSQL schema of its own, and the app running on it. */
function usePostgresApp(name: string): { fixture: () => PreparedFixture; database: () => TempPgSchema; running: RunningApp } {
  let fixture: PreparedFixture;
  let database: TempPgSchema;
  beforeAll(async () => {
    database = await createTempPgSchema();
    fixture = await sharedFixture(name, database.url);
    fixture.run('db:migrate');
  }, 1_200_000);
  afterAll(async () => {
    await database?.drop();
  });
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => database.url });
  return { fixture: () => fixture, database: () => database, running };
}

/** Sends every NUL probe with a valid token; each must be 404 in the error shape, none logged. */
async function expectNulProbesRefused(running: RunningApp, known: Record<string, string>, token: string, atLeast: number): Promise<void> {
  const probes = await nulPathProbes(running.app.url, known);
  expect(probes.length).toBeGreaterThanOrEqual(atLeast);
  for (const probe of probes) {
    const context = `${probe.method} ${probe.path}`;
    const reply = await call(running.app.url, probe.path, { method: probe.method, token, ...(probe.method === 'GET' || probe.method === 'DELETE' ? {} : { json: {} }) });
    expect(reply.status, context).toBe(404);
    expectErrorShape(reply.body, context);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const output = running.app.output();
  expect(output).not.toContain('nul-probe');
  expect(output).not.toContain('"unhandled error"');
  expect(output).not.toContain('invalid byte sequence');
}

describe('orgs-postgresql: finding 5a (low), a NUL byte in a path parameter', () => {
  const { running } = usePostgresApp('orgs-postgresql');

  // Before: 500 INTERNAL_ERROR on the organization and invite routes ("invalid byte sequence for
  // encoding UTF8: 0x00"), with Prisma's stack and the query in the log.
  it('every organization, member and invite route answers 404 in the error shape, and nothing is logged raw', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    const org = await call(running.app.url, '/api/organizations', { token: account.token, json: { name: 'Nul Co' } });
    expect(org.status).toBe(201);
    await expectNulProbesRefused(running, { orgId: org.body.organization.id }, account.token, 12);
  });

  // The fuzz pass of fuzz.test.ts, on PostgreSQL and on the routes with path parameters, whose
  // segments include NUL and other control characters.
  it(
    `${FUZZ_REQUESTS} malformed requests to the routes with path parameters (seed ${SEED}): no 5xx, the error shape everywhere`,
    async () => {
      const url = running.app.url;
      const document = (await call(url, '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
      const routes: Route[] = Object.entries(document.paths)
        .filter(([path]) => path.includes('{'))
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })));
      expect(routes.length).toBeGreaterThanOrEqual(10);
      const account = await register(running, { password: PASSWORD, verified: true });
      const org = await call(url, '/api/organizations', { token: account.token, json: { name: 'Fuzz Co' } });
      const fuzzer = createFuzzer(SEED);
      for (let sent = 0; sent < FUZZ_REQUESTS; sent++) {
        const request = fuzzer.next(routes, { valid: () => account.token }, [org.body.organization.id, account.userId]);
        const context = `seed ${SEED}: ${request.description}`;
        const answer = await sendFuzzRequest(url, request).catch((error: Error) => {
          throw new Error(`${context}: ${error.message}`);
        });
        expect(answer.status, context).toBeLessThan(500);
        if (answer.status >= 400 && request.method !== 'HEAD') {
          expect(answer.contentType, context).toMatch(/^application\/json/);
          expectErrorShape(JSON.parse(answer.body), context);
        }
      }
      expect((await call(url, '/healthz')).status).toBe(200);
      const output = running.app.output();
      expect(output).not.toContain('"unhandled error"');
      expectCleanLogs(output, [account.token]);
    },
    300_000,
  );
});

describe('hosted-postgresql: finding 5a and finding 6 (low)', () => {
  const { fixture, database, running } = usePostgresApp('hosted-postgresql');

  async function query<Row>(sql: string, values: unknown[] = []): Promise<Row[]> {
    const { connectionString } = parsePostgresUrl(database().url);
    const client = new pg.Client({ connectionString, options: `-c search_path=${database().schema}` });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as Row[];
    } finally {
      await client.end();
    }
  }

  // Before: 500 on DELETE /api/auth/identities/:id, with Prisma's stack in the log.
  it('the identities route answers 404 in the error shape for a NUL, and nothing is logged raw', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    await expectNulProbesRefused(running, {}, account.token, 1);
  });

  // Before: nothing deleted expired rows. Two instances start at once on the same database: both
  // run the cleanup, neither fails, and only live rows remain.
  it('two instances starting at once both delete expired rows without error, and keep live ones', async () => {
    const userId = (await query<{ id: string }>(`INSERT INTO "User" (id, email, "updatedAt") VALUES ('cleanup-user', 'cleanup@example.com', now()) RETURNING id`))[0]!.id;
    await query(`INSERT INTO "AuthjsUser" (id, email) VALUES ('cleanup-authjs', 'cleanup-authjs@example.com')`);
    const insert = async (interval: string, count: number, tag: string) => {
      const series = `generate_series(1, ${count}) AS n`;
      await query(`INSERT INTO "Session" (id, "userId", method, "expiresAt", "maxExpiresAt") SELECT '${tag}-a' || n, $1, 'password', now() + interval '${interval}', now() + interval '${interval}' FROM ${series}`, [userId]);
      await query(`INSERT INTO "OneTimeToken" (id, purpose, "tokenHash", "expiresAt", "usedAt") SELECT '${tag}-o' || n, 'oauth_state', '${tag}-o' || n, now() + interval '${interval}', now() FROM ${series}`);
      await query(`INSERT INTO "TwoFactorChallenge" (id, "tokenHash", "userId", "expiresAt", method) SELECT '${tag}-c' || n, '${tag}-c' || n, $1, now() + interval '${interval}', 'password' FROM ${series}`, [userId]);
      await query(`INSERT INTO "AuthjsSession" (id, "sessionTokenHash", "userId", expires) SELECT '${tag}-s' || n, '${tag}-s' || n, 'cleanup-authjs', now() + interval '${interval}' FROM ${series}`);
      await query(`INSERT INTO "AuthjsVerificationToken" (identifier, token, expires) SELECT '${tag}@example.com', '${tag}-v' || n, now() + interval '${interval}' FROM ${series}`);
    };
    await insert('-1 minute', 2000, 'expired');
    await insert('1 hour', 1, 'live');
    const counts = async () => {
      const tables = ['Session', 'OneTimeToken', 'TwoFactorChallenge', 'AuthjsSession', 'AuthjsVerificationToken'];
      const rows = await Promise.all(tables.map(async (table) => [table, Number((await query<{ n: string }>(`SELECT count(*) AS n FROM "${table}" WHERE "${table === 'AuthjsSession' || table === 'AuthjsVerificationToken' ? 'expires' : 'expiresAt'}" < now()`))[0]!.n)]));
      return Object.fromEntries(rows);
    };
    expect(Object.values(await counts())).toEqual([2000, 2000, 2000, 2000, 2000]);

    const instances = await Promise.all([startAppProcess(fixture().dir, running.env()), startAppProcess(fixture().dir, running.env())]);
    try {
      for (let attempt = 0; attempt < 100 && Object.values(await counts()).some(Boolean); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await counts()).toEqual({ Session: 0, OneTimeToken: 0, TwoFactorChallenge: 0, AuthjsSession: 0, AuthjsVerificationToken: 0 });
      expect((await query<{ id: string }>(`SELECT id FROM "Session" WHERE id = 'live-a1'`)).length).toBe(1);
      expect((await query<{ id: string }>(`SELECT id FROM "AuthjsSession" WHERE id = 'live-s1'`)).length).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const instance of instances) expect(instance.output()).not.toContain('could not delete expired rows');
      expect(instances.some((instance) => instance.output().includes('expired rows deleted'))).toBe(true);
    } finally {
      await Promise.all(instances.map((instance) => instance.stop()));
    }
  }, 120_000);
});
