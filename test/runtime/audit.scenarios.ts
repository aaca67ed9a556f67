/**
 * Issue 34 (CONTRACT B.16): the audit log against a running app, on SQLite (full fixture) and on
 * PostgreSQL (orgs-postgresql). Shared here: what must hold on either database.
 *
 * - Tampering on the real database, as someone with write access to it would: a changed row (also
 *   with its hash recomputed by the published rule), a deleted row, a forged row chained on at the
 *   end. `npm run audit:verify` must exit 1 naming the event and what happened to it; the intact
 *   log exits 0 with its number of events. Each test puts the row back afterwards.
 * - kill -9 right after a response, five times: the event for that response is there after the
 *   restart, and the chain still verifies.
 *
 * The app's own tests (test/audit*.test.ts in the generated project) cover each route's rules
 * in-process; this file keeps what needs a real process, a real database and the real command.
 */
import { expect, it } from 'vitest';
import { register, type Account } from '../helpers/accounts.js';
import { call, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { auditRows, forgedHash, runAuditVerify, type AuditDatabase, type AuditRow } from '../helpers/audit-database.js';
import type { PreparedFixture } from '../helpers/fixtures.js';
import type { RunningApp } from '../helpers/running-app.js';
import { createAdmin, PASSWORD } from './admin.scenarios.js';

export interface AuditScenarioSetup {
  fixture: () => PreparedFixture;
  running: RunningApp;
  db: () => AuditDatabase;
}

/** `npm run audit:verify` exits 0 and names the number of events the database holds. */
export async function expectChainVerifies(setup: Pick<AuditScenarioSetup, 'fixture' | 'running' | 'db'>): Promise<number> {
  const verified = await runAuditVerify(setup.fixture(), setup.running.databaseUrl);
  const [counted] = await setup.db().all<{ n: number | string }>('SELECT count(*) AS n FROM "AuditEvent"');
  const n = Number(counted!.n);
  expect(verified.output).toContain(`${n} events`);
  expect(verified.code, verified.output).toBe(0);
  return n;
}

export function describeAuditScenarios(setup: AuditScenarioSetup): void {
  const { running, fixture } = setup;
  const db = () => setup.db();
  const api = (path: string, init: Parameters<typeof call>[2] = {}, url = running.app.url) => call(url, path, init);
  const columns = (row: AuditRow) => Object.keys(row).map((key) => `"${key}"`);

  /** A few fresh events (a registration, a failed and a good sign-in), and the chain as it stands. */
  async function someEvents(): Promise<{ account: Account; rows: AuditRow[] }> {
    const account = await register(running, { password: PASSWORD });
    expect((await api('/api/auth/login', { json: { email: account.email, password: 'not the password at all' } })).status).toBe(401);
    expect((await api('/api/auth/login', { json: { email: account.email, password: PASSWORD } })).status).toBe(200);
    const rows = await auditRows(db());
    expect(rows.length).toBeGreaterThanOrEqual(4);
    return { account, rows };
  }

  /** Writes `row` back as it was (deleting what is there under its id first). */
  async function restore(row: AuditRow): Promise<void> {
    await db().run('DELETE FROM "AuditEvent" WHERE "id" = $1', row.id);
    const names = columns(row);
    await db().run(
      `INSERT INTO "AuditEvent" (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      ...Object.values(row),
    );
  }

  async function expectBroken(pattern: RegExp, ...named: string[]): Promise<void> {
    const verified = await runAuditVerify(fixture(), running.databaseUrl);
    expect(verified.code, verified.output).toBe(1);
    expect(verified.output).toMatch(pattern);
    for (const name of named) expect(verified.output).toContain(name);
  }

  // Attack: rewriting who did something, or from where, straight in the database.
  it('audit:verify exits 1 naming an event whose row was changed in the database (seq and id), then 0 once it is put back', async () => {
    const { rows } = await someEvents();
    const victim = rows.at(-2)!;
    try {
      expect(
        await db().run('UPDATE "AuditEvent" SET "ip" = $1, "actorId" = $2 WHERE "id" = $3', '198.51.100.66', 'someone-else', victim.id),
      ).toBe(1);
      await expectBroken(/changed/, `#${victim.seq}`, victim.id);
    } finally {
      await restore(victim);
    }
    await expectChainVerifies(setup);
  });

  // Attack: the same change by someone who also recomputes the row's hash by the published rule,
  // so the row is consistent in itself; only the next event's link to it (or, for the last event,
  // the chain's end) tells.
  it('audit:verify names an event changed with its own hash recomputed, in the middle or at the end: that event (seq and id), as changed', async () => {
    const { rows } = await someEvents();
    for (const victim of [rows.at(-2)!, rows.at(-1)!]) {
      // The forger's rule reproduces the app's hashes, so what follows is a faithful forgery.
      expect(forgedHash(victim.prevHash, victim)).toBe(victim.hash);
      const changed = { ...victim, metadata: JSON.stringify({ method: 'password', note: 'nothing to see' }), ip: '198.51.100.66' };
      try {
        const hash = forgedHash(victim.prevHash, changed);
        await db().run(
          'UPDATE "AuditEvent" SET "metadata" = $1, "ip" = $2, "hash" = $3 WHERE "id" = $4',
          changed.metadata,
          changed.ip,
          hash,
          victim.id,
        );
        await expectBroken(/changed/, `#${victim.seq}`, victim.id);
      } finally {
        await restore(victim);
      }
    }
    await expectChainVerifies(setup);
  });

  // Attack: removing the event that gives someone away.
  it('audit:verify exits 1 naming the seq of a deleted event as removed', async () => {
    const { rows } = await someEvents();
    const victim = rows.at(-3)!;
    try {
      expect(await db().run('DELETE FROM "AuditEvent" WHERE "id" = $1', victim.id)).toBe(1);
      await expectBroken(/removed/, `#${victim.seq}`);
    } finally {
      await restore(victim);
    }
    await expectChainVerifies(setup);
  });

  // Attack: the last event removed, where no later event's link is left to tell.
  it('audit:verify exits 1 naming the seq of the deleted last event as removed', async () => {
    const { rows } = await someEvents();
    const victim = rows.at(-1)!;
    try {
      expect(await db().run('DELETE FROM "AuditEvent" WHERE "id" = $1', victim.id)).toBe(1);
      await expectBroken(/removed/, `#${victim.seq}`);
    } finally {
      await restore(victim);
    }
    await expectChainVerifies(setup);
  });

  // Attack: an alibi added afterwards, chained on correctly by the published rule.
  it('audit:verify exits 1 naming a forged event inserted after the last one (seq and id), even when its hashes chain on', async () => {
    const { account, rows } = await someEvents();
    const last = rows.at(-1)!;
    const forged: AuditRow = {
      ...last,
      id: `forged-${last.id}`,
      seq: last.seq + 1,
      action: 'auth.signed_out',
      actorType: 'user',
      actorId: account.userId,
      targetType: 'user',
      targetId: account.userId,
      metadata: '{}',
      prevHash: last.hash,
      hash: '',
    };
    forged.hash = forgedHash(last.hash, forged);
    const names = columns(forged);
    try {
      await db().run(
        `INSERT INTO "AuditEvent" (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
        ...Object.values(forged),
      );
      await expectBroken(/inserted/, `#${forged.seq}`, forged.id);
    } finally {
      await db().run('DELETE FROM "AuditEvent" WHERE "id" = $1', forged.id);
    }
    await expectChainVerifies(setup);
  });

  it('audit:verify on the intact log exits 0 and prints the number of events', async () => {
    await someEvents();
    expect(await expectChainVerifies(setup)).toBeGreaterThanOrEqual(4);
  });

  // B.16 rule 1: a response the client saw is never missing its event, even when the process is
  // killed right after it. Each step gets its own process, killed with SIGKILL the moment its answer
  // has arrived; the next process (the restart) must show the event through the admin log.
  // Six starts of the app and the admin command: about 10 s alone, three times that on a busy machine.
  it('kill -9 right after a sign-in, a failed sign-in, a key creation, a logout and a password change: each event is there after the restart, and the chain verifies', async () => {
    const admin = await createAdmin({ fixture, running });
    const user = await register(running, { password: PASSWORD });
    let session = '';
    let keyId = '';
    const steps: {
      name: string;
      action: string;
      target: () => string;
      status: number;
      send: (url: string) => ReturnType<typeof call>;
      after?: (reply: Awaited<ReturnType<typeof call>>) => void;
    }[] = [
      {
        name: 'sign-in',
        action: 'auth.signed_in',
        target: () => user.userId,
        status: 200,
        send: (url) => api('/api/auth/login', { json: { email: user.email, password: PASSWORD } }, url),
        after: (reply) => {
          session = reply.body.token;
        },
      },
      {
        name: 'failed sign-in',
        action: 'auth.sign_in_failed',
        target: () => user.userId,
        status: 401,
        send: (url) => api('/api/auth/login', { json: { email: user.email, password: 'a wrong password entirely' } }, url),
      },
      {
        name: 'key creation',
        action: 'api_key.created',
        target: () => keyId,
        status: 201,
        send: (url) => api('/api/auth/api-keys', { token: session, json: { name: 'killed right after' } }, url),
        after: (reply) => {
          keyId = reply.body.apiKey.id;
        },
      },
      {
        name: 'logout',
        action: 'auth.signed_out',
        target: () => user.userId,
        status: 204,
        send: (url) => api('/api/auth/logout', { method: 'POST', token: session }, url),
      },
      {
        name: 'password change',
        action: 'password.changed',
        target: () => user.userId,
        status: 200,
        send: (url) =>
          api(
            '/api/auth/password/change',
            { token: user.token, json: { currentPassword: PASSWORD, newPassword: 'another long passphrase here' } },
            url,
          ),
      },
    ];
    const count = async (url: string, action: string, targetId: string) => {
      const listed = await api(
        `/api/admin/audit-log?action=${action}&targetId=${encodeURIComponent(targetId)}&limit=200`,
        { token: admin.token },
        url,
      );
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      return listed.body.events.length as number;
    };
    let app: AppProcess = await startAppProcess(fixture().dir, running.env());
    try {
      for (const step of steps) {
        // The key's id is known only from the answer: before it, no event can name it.
        const before = step.action === 'api_key.created' ? 0 : await count(app.url, step.action, step.target());
        const reply = await step.send(app.url);
        app.child.kill('SIGKILL');
        await app.stop();
        expect(reply.status, `${step.name}: ${JSON.stringify(reply.body)}`).toBe(step.status);
        step.after?.(reply);
        app = await startAppProcess(fixture().dir, running.env());
        expect(await count(app.url, step.action, step.target()), `${step.name}: ${step.action} after kill -9 and restart`).toBe(before + 1);
      }
    } finally {
      await app.stop();
    }
    await expectChainVerifies(setup);
  }, 120_000);
}
