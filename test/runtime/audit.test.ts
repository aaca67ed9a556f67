/**
 * Issue 34 (CONTRACT B.16): the audit log against running apps.
 *
 * - Both databases (audit.scenarios.ts): tampering with the real database and `npm run
 *   audit:verify`; kill -9 right after a response, five times.
 * - SQLite (full fixture): the webhooks, against a receiver in this file: the Standard Webhooks
 *   signature checked with node:crypto, retries after three failures, a receiver down across a
 *   restart, a receiver that hangs, and http:// refused in production.
 * - PostgreSQL (orgs-postgresql fixture): 40 concurrent sign-ins over two instances keep one
 *   chain; each event names its actor, target, organization, ip and user agent as sent, and holds
 *   no secret.
 *
 * Both fixtures are the shared ones (one generation and install per run); each suite has its own
 * database.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail } from '../helpers/accounts.js';
import { call, freePort, runAppUntilExit, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { auditRows, openAuditDatabase, storedDate, type AuditDatabase, type AuditRow } from '../helpers/audit-database.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { useRunningApp } from '../helpers/running-app.js';
import { createTempPgSchema, type TempPgSchema } from '../helpers/schema-engine.js';
import {
  signatureVerifies,
  startWebhookReceiver,
  webhookSecret,
  type WebhookAnswer,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import { createAdmin, PASSWORD } from './admin.scenarios.js';
import { describeAuditScenarios, expectChainVerifies } from './audit.scenarios.js';

/** Polls until `done()` holds; fails naming `what` after `timeoutMs` (a deadline, not a measurement). */
async function until(done: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await done()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `$n, …` placeholders for a list of ids after `before` other parameters. */
const inList = (ids: string[], before = 0) => ids.map((_, i) => `$${before + i + 1}`).join(', ');

describe('SQLite (full fixture)', () => {
  let fixture: PreparedFixture;
  let database: AuditDatabase | undefined;
  beforeAll(async () => {
    fixture = await sharedFixture('full');
  });
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'audit') });
  afterAll(async () => {
    await database?.close();
  });
  describeAuditScenarios({ fixture: () => fixture, running, db: () => (database ??= openAuditDatabase(running.databaseUrl)) });

  describe('webhooks', () => {
    const secret = webhookSecret(randomBytes(32));
    let hooksUrl = '';
    let hooks: AuditDatabase;
    beforeAll(() => {
      // A database of their own: the outbox holds only what these tests send.
      hooksUrl = copyOfDevDatabase(fixture, 'audit-webhooks');
      hooks = openAuditDatabase(hooksUrl);
    });
    afterAll(async () => {
      await hooks?.close();
    });
    const hooksEnv = (url: string, extra: Record<string, string> = {}) =>
      running.env({ DATABASE_URL: hooksUrl, AUDIT_WEBHOOK_URL: url, AUDIT_WEBHOOK_SECRET: secret, ...extra });

    async function signUp(app: AppProcess): Promise<{ email: string; userId: string }> {
      const email = uniqueEmail('hooked');
      const reply = await call(app.url, '/api/auth/register', { json: { email, password: PASSWORD } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return { email, userId: reply.body.user.id };
    }

    const outbox = (ids: string[]) =>
      hooks.all<{ eventId: string; attempts: number; nextAttemptAt: unknown }>(
        `SELECT "eventId", "attempts", "nextAttemptAt" FROM "AuditDelivery" WHERE "eventId" IN (${inList(ids)})`,
        ...ids,
      );

    /** The delivery is the event: its type, id, place in the chain and hash, and a signature that verifies. */
    function expectDeliveryOf(event: AuditRow, delivery: WebhookReceiver['received'][number]): void {
      expect(delivery.id).toBe(event.id);
      expect(signatureVerifies(secret, delivery), `signature of ${event.action} ${event.id}`).toBe(true);
      // The same check fails for another secret or another body: the checker above is no rubber stamp.
      expect(signatureVerifies(webhookSecret(randomBytes(32)), delivery)).toBe(false);
      expect(signatureVerifies(secret, { ...delivery, body: delivery.body.replace(event.id, `${event.id}x`) })).toBe(false);
      // A Standard Webhooks receiver refuses a timestamp more than five minutes from its clock.
      expect(Math.abs(Number(delivery.timestamp) - delivery.receivedAt / 1000)).toBeLessThan(300);
      const payload = JSON.parse(delivery.body);
      expect(payload).toMatchObject({
        type: event.action,
        data: { id: event.id, action: event.action, chain: { seq: event.seq, hash: event.hash } },
      });
    }

    it('an http:// AUDIT_WEBHOOK_URL with NODE_ENV=production stops the start (exit 1, naming AUDIT_WEBHOOK_URL); an https:// one starts', async () => {
      const refused = await runAppUntilExit(
        fixture.dir,
        hooksEnv('http://audit.example.test/events', { NODE_ENV: 'production', BCRYPT_COST: '12' }),
      );
      expect(refused.code, refused.output).toBe(1);
      expect(refused.output).toContain('AUDIT_WEBHOOK_URL');
      expect(refused.output).not.toContain('server listening');
      const started = await startAppProcess(
        fixture.dir,
        hooksEnv('https://audit.example.test/events', { NODE_ENV: 'production', BCRYPT_COST: '12' }),
      );
      expect(await started.stop()).toBe(0);
    });

    it('each event is POSTed signed by the Standard Webhooks rule (checked with node:crypto); one refused three times (500, a cut connection, 503) arrives the fourth time with the same webhook-id', async () => {
      const failures: WebhookAnswer[] = [500, 'drop', 503];
      const receiver = await startWebhookReceiver({ answer: (_delivery, earlier) => failures[earlier] ?? 200 });
      const app = await startAppProcess(fixture.dir, hooksEnv(receiver.url));
      try {
        const user = await signUp(app);
        const events = await auditRows(hooks, '"actorId" = $1 OR "targetId" = $2', user.userId, user.userId);
        expect(events.map((event) => event.action)).toContain('auth.registered');
        const ids = events.map((event) => event.id);
        let backoff = 0;
        for (let failure = 1; failure <= failures.length; failure++) {
          await receiver.waitUntil(
            () => ids.every((id) => receiver.deliveriesOf(id).length >= failure),
            `attempt ${failure} of every event`,
          );
          await until(
            async () => (await outbox(ids)).every((row) => Number(row.attempts) >= failure),
            `failure ${failure} recorded in the outbox`,
          );
          for (const row of await outbox(ids)) {
            const failedAt = receiver.deliveriesOf(row.eventId)[failure - 1]!.receivedAt;
            const due = storedDate(row.nextAttemptAt).getTime();
            expect(due, `retry ${failure} is scheduled after the failure`).toBeGreaterThan(failedAt);
            backoff = Math.max(backoff, due - failedAt);
          }
          // Standing for minutes passing: the retry comes due now instead of after its backoff.
          await hooks.run(
            `UPDATE "AuditDelivery" SET "nextAttemptAt" = $1 WHERE "eventId" IN (${inList(ids, 1)})`,
            hooks.date(Date.now() - 1000),
            ...ids,
          );
        }
        // B.16 rule 7: the first three retries within 10 minutes (each waited less than that).
        expect(backoff).toBeLessThanOrEqual(10 * 60_000);
        await receiver.waitUntil(
          () => ids.every((id) => receiver.deliveriesOf(id).some((delivery) => delivery.answer === 200)),
          'the fourth attempt of every event',
        );
        await until(async () => (await outbox(ids)).length === 0, 'the outbox to empty');
        for (const event of events) {
          const deliveries = receiver.deliveriesOf(event.id);
          expect(deliveries.map((delivery) => delivery.answer)).toEqual([500, 'dropped', 503, 200]);
          for (const delivery of deliveries) expectDeliveryOf(event, delivery);
        }
      } finally {
        await app.stop();
        await receiver.close();
      }
    });

    it('a receiver that is down while the app is killed and restarted gets every event afterwards, each once', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/audit-events`;
      const [newest] = await hooks.all<{ last: number | null }>('SELECT max("seq") AS last FROM "AuditEvent"');
      const since = Number(newest?.last ?? 0);
      let receiver: WebhookReceiver | undefined;
      const pending = async () =>
        hooks.all<{ attempts: number }>(
          'SELECT d."attempts" FROM "AuditDelivery" d JOIN "AuditEvent" e ON e."id" = d."eventId" WHERE e."seq" > $1',
          since,
        );
      let app = await startAppProcess(fixture.dir, hooksEnv(url));
      try {
        const before = await signUp(app);
        expect((await call(app.url, '/api/auth/login', { json: { email: before.email, password: PASSWORD } })).status).toBe(200);
        // The app tried while the receiver was down (connection refused): every row has failed once.
        await until(async () => (await pending()).every((row) => Number(row.attempts) >= 1), 'the first failed attempts');
        app.child.kill('SIGKILL');
        await app.stop();
        app = await startAppProcess(fixture.dir, hooksEnv(url));
        const after = await signUp(app);
        expect((await call(app.url, '/api/auth/login', { json: { email: after.email, password: PASSWORD } })).status).toBe(200);
        await until(async () => (await pending()).every((row) => Number(row.attempts) >= 1), 'the failed attempts after the restart');
        const events = await auditRows(hooks, '"seq" > $1', since);
        expect(new Set(events.map((event) => event.actorId))).toEqual(new Set([before.userId, after.userId]));
        receiver = await startWebhookReceiver({ port });
        // Standing for minutes passing: the retries come due now, and a lease the killed process
        // held (a few minutes long) has run out.
        await hooks.run('UPDATE "AuditDelivery" SET "nextAttemptAt" = $1, "lockedUntil" = NULL', hooks.date(Date.now() - 1000));
        await until(async () => (await pending()).length === 0, 'the outbox to empty');
        // Every event, and each once: nothing was interrupted mid-send, so at least once is once here.
        // (Filtered to this test's events: what an earlier test left in the outbox may come too.)
        const ours = new Set(events.map((event) => event.id));
        expect(
          receiver.received
            .map((delivery) => delivery.id)
            .filter((id) => ours.has(id))
            .sort(),
        ).toEqual([...ours].sort());
        for (const event of events) expectDeliveryOf(event, receiver.deliveriesOf(event.id)[0]!);
      } finally {
        await app.stop();
        await receiver?.close();
      }
    });

    it('a receiver that accepts and never answers does not hold up sign-ins: ten answer 200 while its deliveries are still unanswered', async () => {
      const receiver = await startWebhookReceiver({ answer: () => 'hang' });
      const app = await startAppProcess(fixture.dir, hooksEnv(receiver.url));
      try {
        const user = await signUp(app);
        await receiver.waitUntil(() => receiver.received.some((delivery) => delivery.open), 'a delivery');
        // Each answer is checked against the receiver as it arrives: a delivery was still held open,
        // unanswered, at that moment (the app gives up on one after its own timeout and sends the
        // next, which this receiver holds too).
        const signIn = async () => {
          const reply = await call(app.url, '/api/auth/login', { json: { email: user.email, password: PASSWORD } });
          return { status: reply.status, whileHeld: receiver.received.some((delivery) => delivery.open && delivery.answer === null) };
        };
        const answers = [];
        for (let i = 0; i < 5; i++) answers.push(await signIn());
        answers.push(...(await Promise.all(Array.from({ length: 5 }, signIn))));
        expect(answers).toEqual(Array(10).fill({ status: 200, whileHeld: true }));
        // Their events are recorded and wait in the outbox.
        const signIns = await auditRows(hooks, '"action" = $1 AND "actorId" = $2', 'auth.signed_in', user.userId);
        expect(signIns).toHaveLength(11);
        expect((await outbox(signIns.map((event) => event.id))).length).toBeGreaterThanOrEqual(10);
      } finally {
        await receiver.close();
        await app.stop();
      }
    });
  });
});

describe('PostgreSQL (orgs-postgresql fixture)', () => {
  let fixture: PreparedFixture;
  let schema: TempPgSchema;
  let opened: AuditDatabase | undefined;
  beforeAll(async () => {
    schema = await createTempPgSchema();
    fixture = await sharedFixture('orgs-postgresql', schema.url);
    fixture.run('db:migrate');
  });
  const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => schema.url });
  afterAll(async () => {
    await opened?.close();
    await schema?.drop();
  });
  const db = () => (opened ??= openAuditDatabase(schema.url));
  const setup = { fixture: () => fixture, running, db };
  describeAuditScenarios(setup);

  it('40 concurrent sign-ins over two instances on one database: all answer 200, 40 auth.signed_in events, consecutive seqs, one chain that verifies', async () => {
    const second = await startAppProcess(fixture.dir, running.env());
    try {
      const accounts = [];
      for (let i = 0; i < 40; i++) accounts.push(await register(running, { password: PASSWORD }));
      const [newest] = await db().all<{ last: number }>('SELECT max("seq") AS last FROM "AuditEvent"');
      const last = Number(newest!.last);
      const replies = await Promise.all(
        accounts.map((account, i) =>
          call(i % 2 === 0 ? running.app.url : second.url, '/api/auth/login', { json: { email: account.email, password: PASSWORD } }),
        ),
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array(40).fill(200));
      const rows = await auditRows(db(), '"seq" > $1', last);
      expect(rows.map((row) => row.seq)).toEqual(rows.map((_, i) => last + 1 + i));
      const signIns = rows.filter((row) => row.action === 'auth.signed_in');
      expect(signIns).toHaveLength(40);
      expect(new Set(signIns.map((row) => row.actorId))).toEqual(new Set(accounts.map((account) => account.userId)));
      rows.forEach((row, i) =>
        expect(row.prevHash, `#${row.seq} follows #${row.seq - 1}`).toBe(i === 0 ? rows[0]!.prevHash : rows[i - 1]!.hash),
      );
    } finally {
      await second.stop();
    }
    await expectChainVerifies(setup);
  });

  // Attack: a client naming its own address when no proxy is trusted.
  it('without TRUST_PROXY, a forged X-Forwarded-For is not the ip recorded: the connection is', async () => {
    const account = await register(running, { password: PASSWORD });
    const reply = await call(running.app.url, '/api/auth/login', {
      json: { email: account.email, password: PASSWORD },
      headers: { 'x-forwarded-for': '198.51.100.9', 'user-agent': 'ForgedProbe/1.0' },
    });
    expect(reply.status).toBe(200);
    const [event] = await auditRows(
      db(),
      '"action" = $1 AND "actorId" = $2 AND "userAgent" = $3',
      'auth.signed_in',
      account.userId,
      'ForgedProbe/1.0',
    );
    expect(event?.ip).toBe('127.0.0.1');
  });

  it('each event names its actor, target, organization, ip and user agent as the request sent them, and none holds a password, token, key or code', async () => {
    const proxied = await startAppProcess(fixture.dir, running.env({ TRUST_PROXY: '1' }));
    try {
      const admin = await createAdmin({ fixture: () => fixture, running });
      let n = 0;
      type Client = { ip: string; userAgent: string };
      const client = (): Client => {
        n += 1;
        return { ip: `203.0.113.${n}`, userAgent: `AuditProbe/${n} (runtime test)` };
      };
      const send = (from: Client, path: string, init: Parameters<typeof call>[2] = {}) =>
        call(proxied.url, path, { ...init, headers: { 'x-forwarded-for': from.ip, 'user-agent': from.userAgent } });
      const user = (id: string) => ({ type: 'user', id });
      const secrets: string[] = [PASSWORD];
      const expected: {
        action: string;
        from: Client;
        actor: unknown;
        target: unknown;
        organizationId: string | null;
        metadata?: Record<string, unknown>;
      }[] = [];
      const ok = (reply: Awaited<ReturnType<typeof call>>, status: number) => {
        expect(reply.status, JSON.stringify(reply.body)).toBe(status);
        for (const key of ['token', 'refreshToken', 'key']) if (typeof reply.body?.[key] === 'string') secrets.push(reply.body[key]);
        return reply.body;
      };

      let from = client();
      const ownerEmail = uniqueEmail('owner');
      const owner = ok(await send(from, '/api/auth/register', { json: { email: ownerEmail, password: PASSWORD } }), 201).user.id as string;
      expected.push({
        action: 'auth.registered',
        from,
        actor: user(owner),
        target: user(owner),
        organizationId: null,
        metadata: { method: 'password' },
      });

      from = client();
      const wrong = 'not-my-password-but-close';
      secrets.push(wrong);
      ok(await send(from, '/api/auth/login', { json: { email: ownerEmail, password: wrong } }), 401);
      expected.push({
        action: 'auth.sign_in_failed',
        from,
        actor: { type: 'user', id: null },
        target: user(owner),
        organizationId: null,
        metadata: { method: 'password', reason: 'invalid_credentials' },
      });

      from = client();
      const session = ok(await send(from, '/api/auth/login', { json: { email: ownerEmail, password: PASSWORD } }), 200).token as string;
      expected.push({
        action: 'auth.signed_in',
        from,
        actor: user(owner),
        target: user(owner),
        organizationId: null,
        metadata: { method: 'password' },
      });

      from = client();
      const orgId = ok(
        await send(from, '/api/organizations', { token: session, json: { name: 'Audited', slug: `audited-${Date.now().toString(36)}` } }),
        201,
      ).organization.id as string;
      const organization = { type: 'organization', id: orgId };
      expected.push({ action: 'organization.created', from, actor: user(owner), target: organization, organizationId: orgId });

      from = client();
      const memberEmail = uniqueEmail('member');
      const invited = ok(
        await send(from, `/api/organizations/${orgId}/invite`, { token: session, json: { email: memberEmail, role: 'member' } }),
        201,
      );
      const inviteToken = String(invited.inviteUrl).split('/invite/')[1]!;
      secrets.push(inviteToken);
      const invite = { type: 'invite', id: invited.invite.id };
      expected.push({
        action: 'invite.created',
        from,
        actor: user(owner),
        target: invite,
        organizationId: orgId,
        metadata: { role: 'member' },
      });

      from = client();
      const joined = ok(await send(from, '/api/auth/register', { json: { email: memberEmail, password: PASSWORD } }), 201);
      const member = joined.user.id as string;
      expected.push({ action: 'auth.registered', from, actor: user(member), target: user(member), organizationId: null });

      from = client();
      ok(await send(from, `/api/organizations/invite/${inviteToken}/accept`, { method: 'POST', token: joined.token }), 200);
      expected.push({ action: 'invite.accepted', from, actor: user(member), target: invite, organizationId: orgId });
      expected.push({
        action: 'member.added',
        from,
        actor: user(member),
        target: user(member),
        organizationId: orgId,
        metadata: { role: 'member' },
      });

      const members = ok(await call(proxied.url, `/api/organizations/${orgId}/members`, { token: session }), 200).members as {
        id: string;
        userId: string;
      }[];
      from = client();
      ok(
        await send(from, `/api/organizations/${orgId}/members/${members.find((one) => one.userId === member)!.id}/role`, {
          method: 'PUT',
          token: session,
          json: { role: 'admin' },
        }),
        200,
      );
      expected.push({
        action: 'member.role_changed',
        from,
        actor: user(owner),
        target: user(member),
        organizationId: orgId,
        metadata: { from: 'member', to: 'admin' },
      });

      from = client();
      const made = ok(
        await send(from, `/api/organizations/${orgId}/api-keys`, {
          token: session,
          json: { name: 'siem', role: 'admin', scopes: ['orgs:read', 'orgs:write'] },
        }),
        201,
      );
      const key = { type: 'apiKey', id: made.apiKey.id as string };
      expected.push({ action: 'api_key.created', from, actor: user(owner), target: key, organizationId: orgId });

      from = client();
      ok(await send(from, `/api/organizations/${orgId}`, { method: 'PUT', token: made.key, json: { name: 'Audited by a key' } }), 200);
      expected.push({ action: 'organization.updated', from, actor: key, target: organization, organizationId: orgId });

      from = client();
      ok(await send(from, `/api/admin/users/${member}/ban`, { token: admin.token, json: { reason: 'testing the log' } }), 200);
      expected.push({
        action: 'admin.user_banned',
        from,
        actor: { type: 'admin', id: admin.userId },
        target: user(member),
        organizationId: null,
        metadata: { reason: 'testing the log' },
      });

      from = client();
      const changed = ok(
        await send(from, '/api/auth/password/change', {
          token: session,
          json: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
        }),
        200,
      );
      secrets.push('a brand new passphrase');
      expected.push({ action: 'password.changed', from, actor: user(owner), target: user(owner), organizationId: null });

      from = client();
      ok(await send(from, '/api/auth/logout', { method: 'POST', token: changed.token }), 204);
      expected.push({ action: 'auth.signed_out', from, actor: user(owner), target: user(owner), organizationId: null });

      // Read as the API shows them (the admin log), each found by the address its request came from.
      const listed = ok(await call(proxied.url, '/api/admin/audit-log?limit=200', { token: admin.token }), 200).events as Record<
        string,
        unknown
      >[];
      for (const want of expected) {
        const found = listed.filter((event) => event.action === want.action && event.ip === want.from.ip);
        expect(found, `${want.action} from ${want.from.ip}`).toHaveLength(1);
        expect(found[0], want.action).toMatchObject({
          actor: want.actor,
          target: want.target,
          organizationId: want.organizationId,
          ip: want.from.ip,
          userAgent: want.from.userAgent,
          ...(want.metadata ? { metadata: want.metadata } : {}),
        });
      }
      // The organization's own log shows its events, to its owner (signed in again: both sessions ended above).
      const again = ok(await call(proxied.url, '/api/auth/login', { json: { email: ownerEmail, password: 'a brand new passphrase' } }), 200)
        .token as string;
      const orgLog = ok(await call(proxied.url, `/api/organizations/${orgId}/audit-log?limit=200`, { token: again }), 200).events as {
        action: string;
      }[];
      expect(new Set(orgLog.map((event) => event.action))).toEqual(
        new Set(expected.filter((want) => want.organizationId === orgId).map((want) => want.action)),
      );
      // B.16 rule 2: no event holds a password, token, key or invite code the test sent or got.
      const stored = JSON.stringify(await auditRows(db()));
      for (const secret of new Set(secrets)) expect(stored.includes(secret), `a secret in the log: ${secret.slice(0, 6)}…`).toBe(false);
    } finally {
      await proxied.stop();
    }
  });
});
