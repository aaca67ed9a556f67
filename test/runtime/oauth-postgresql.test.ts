/**
 * The OAuth modules on PostgreSQL (jwt + all 12 providers, no magic link): the project checks,
 * every provider's sign-in, concurrent first sign-ins of one identity, and the last way to sign in
 * kept. The full SQLite fixture (oauth.test.ts) covers every attack case.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { PROVIDER_IDS, startFakeProviders, type FakeProviders, type FakeUser, type ProviderId } from '../helpers/fake-oauth/index.js';
import { prepareFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { exchange, signIn } from '../helpers/oauth-browser.js';
import { TEST_APP_URL as FRONT_END, useRunningApp } from '../helpers/running-app.js';
import { createTempPgSchema, parsePostgresUrl, type TempPgSchema } from '../helpers/schema-engine.js';
import { projectChecks } from './project-checks.js';

let fixture: PreparedFixture;
let database: TempPgSchema;
let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders();
  database = await createTempPgSchema();
  fixture = prepareFixture('oauth-postgresql', database.url);
});
afterAll(async () => {
  await fake?.close();
  await database?.drop();
});

describe('oauth-postgresql fixture (jwt + every OAuth provider, PostgreSQL): the generated project', () => {
  projectChecks({ fixture: () => fixture, db: 'postgresql', databaseUrl: () => database.url });
});

describe('oauth-postgresql fixture: the running server', () => {
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => database.url, env: () => fake.envAll() });

  async function count(sql: string, value: string): Promise<number> {
    const { connectionString } = parsePostgresUrl(database.url);
    const client = new pg.Client({ connectionString, options: `-c search_path=${database.schema}` });
    await client.connect();
    try {
      return Number((await client.query(sql, [value])).rows[0].n);
    } finally {
      await client.end();
    }
  }

  const person = (provider: ProviderId, id: string): FakeUser => ({ id, email: uniqueEmail(provider), emailVerified: true, name: `${provider} person` });

  async function signInAs(provider: ProviderId, user: FakeUser) {
    fake.nextUser(provider, user);
    const landing = await signIn({ appUrl: running.app.url, frontEndUrl: FRONT_END, provider });
    expect(landing.error, landing.url.href).toBeUndefined();
    const reply = await exchange(running.app.url, landing.code!, landing.jar);
    expect(reply.status).toBe(200);
    return reply.body;
  }

  it.each(PROVIDER_IDS)('%s signs in end to end', async (provider) => {
    const user = person(provider, `${Date.now()}`);
    const body = await signInAs(provider, user);
    expect(body.user.email).toBe(user.email);
    expect((await signInAs(provider, { ...user, firstLogin: false })).user.id).toBe(body.user.id);
  });

  it('six first sign-ins of one new identity at once make one user and one identity', async () => {
    const user = person('gitlab', `${Date.now()}`);
    const bodies = await Promise.all(Array.from({ length: 6 }, () => signInAs('gitlab', user)));
    expect(new Set(bodies.map((body) => body.user.id)).size).toBe(1);
    expect(await count('SELECT count(*) AS n FROM "User" WHERE email = $1', user.email!)).toBe(1);
    expect(await count('SELECT count(*) AS n FROM "Account" WHERE email = $1', user.email!)).toBe(1);
    expect(running.app.output()).not.toContain('"unhandled error"');
  });

  it('keeps the only way to sign in (409 LAST_SIGN_IN_METHOD) until the user has a password', async () => {
    const user = person('google', `${Date.now()}`);
    const body = await signInAs('google', user);
    const [identity] = (await call(running.app.url, '/api/auth/identities', { token: body.token })).body.identities;
    const refused = await call(running.app.url, `/api/auth/identities/${identity.id}`, { method: 'DELETE', token: body.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('LAST_SIGN_IN_METHOD');

    const since = running.mail.messages.length;
    await call(running.app.url, '/api/auth/password/forgot', { json: { email: user.email } });
    const mail = await running.mail.waitForMail(user.email!, { since });
    const token = new URL(running.mail.linkFrom(mail, `${FRONT_END}/reset-password?token=`)).searchParams.get('token');
    const reset = await call(running.app.url, '/api/auth/password/reset', { json: { token, password: 'a password of my own now' } });
    expect(reset.status).toBe(200);
    expect((await call(running.app.url, `/api/auth/identities/${identity.id}`, { method: 'DELETE', token: reset.body.token })).status).toBe(204);
  });
});
