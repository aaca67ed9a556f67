import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../src/generated/prisma/client.js';
import { recordEvent, userRef } from '../src/modules/auth/events.js';
import { hashEvent, pruneChain, verifyChain } from '../src/modules/audit/audit-chain.js';
import { startAuditRetention } from '../src/modules/audit/audit-retention.js';
import { auditRows, call, runAuditVerify } from './helpers/audit.js';
import { createUserWithToken, startTestApp, type TestApp } from './helpers/test-app.js';

// The hash chain of B.16 rule 4, checked the way an operator checks it: `npm run audit:verify`, in a
// child process, against a database changed behind the app's back.

const DAY_MS = 86_400_000;

/** Some events through the routes: sign-ins, exports and logouts of a few users. */
async function someEvents(target: TestApp, users = 3): Promise<void> {
  for (let i = 0; i < users; i++) {
    const { token } = await createUserWithToken(target);
    expect((await call(target, '/api/auth/account/export', { token })).status).toBe(200);
    expect((await call(target, '/api/auth/logout', { method: 'POST', token })).status).toBe(204);
  }
}

/** An event as the database holds it, without the relation fields, to write it back. */
const columnsOf = ({ ...row }: AuditEvent) => row;

describe('npm run audit:verify', () => {
  let app: TestApp;
  let events: AuditEvent[];
  beforeAll(async () => {
    app = await startTestApp();
    await someEvents(app);
    events = await auditRows(app);
    expect(events.length).toBe(9);
  });
  afterAll(async () => {
    await app.close();
  });
  /** Every tampering below is undone afterwards, and the chain holds again: what was detected was exactly the tampering. */
  afterEach(async () => {
    expect(await verifyChain(app.context.prisma)).toEqual({ events: events.length });
  });

  it('exits 0 and prints the number of events when the chain holds', async () => {
    const verified = await runAuditVerify(app);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`${events.length} events`);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it('exits 1 naming an event whose row was changed (a forged address, a changed action, a moved time)', async () => {
    const victim = events[4]!;
    await app.context.prisma.auditEvent.update({ where: { id: victim.id }, data: { ip: '198.51.100.1' } });
    const broken = await runAuditVerify(app);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`event #${victim.seq} (${victim.id}) was changed`);
    await app.context.prisma.auditEvent.update({ where: { id: victim.id }, data: columnsOf(victim) });
    // Every other column is covered by the hash as well (checked in-process, as the command does).
    const otherChanges = [
      { action: victim.action === 'account.exported' ? 'auth.signed_out' : 'account.exported' },
      { occurredAt: new Date(victim.occurredAt.getTime() - 60_000) },
      { metadata: '{"note":"added later"}' },
      { actorId: 'someone-else' },
      { targetType: 'organization' },
      { userAgent: 'another agent' },
      { organizationId: 'another-organization' },
    ];
    for (const change of otherChanges) {
      await app.context.prisma.auditEvent.update({ where: { id: victim.id }, data: change });
      expect(await verifyChain(app.context.prisma), JSON.stringify(change)).toEqual({ seq: victim.seq, id: victim.id, problem: 'changed' });
      await app.context.prisma.auditEvent.update({ where: { id: victim.id }, data: columnsOf(victim) });
    }
    // A forger who also computes the row's own hash again still breaks the link to the next event
    // (or, for the last event, to the chain's end).
    for (const rewrite of [victim, events.at(-1)!]) {
      const rewritten = { ...columnsOf(rewrite), ip: '198.51.100.2' };
      await app.context.prisma.auditEvent.update({
        where: { id: rewrite.id },
        data: { ip: rewritten.ip, hash: hashEvent(rewrite.prevHash, rewritten) },
      });
      const broken = await runAuditVerify(app);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain(`event #${rewrite.seq} (${rewrite.id}) was changed`);
      await app.context.prisma.auditEvent.update({ where: { id: rewrite.id }, data: columnsOf(rewrite) });
    }
  }, 60_000);

  it('exits 1 naming an event that was removed, in the middle or at the end', async () => {
    for (const victim of [events[3]!, events.at(-1)!]) {
      await app.context.prisma.auditEvent.delete({ where: { id: victim.id } });
      const broken = await runAuditVerify(app);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain(`event #${victim.seq}`);
      expect(broken.stderr).toContain('removed');
      await app.context.prisma.auditEvent.create({ data: columnsOf(victim) });
    }
  }, 30_000);

  it('exits 1 naming an event that was inserted, even one whose hash was computed like the app does', async () => {
    const last = events.at(-1)!;
    const forged = { ...columnsOf(last), id: 'forged-event', seq: last.seq + 1, action: 'account.exported', prevHash: last.hash };
    await app.context.prisma.auditEvent.create({ data: { ...forged, hash: hashEvent(last.hash, forged) } });
    const broken = await runAuditVerify(app);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`event #${forged.seq} (forged-event) was inserted`);
    await app.context.prisma.auditEvent.delete({ where: { id: 'forged-event' } });
  });

  it('exits 1 naming an event put in place of a removed one, with a hash computed like the app does', async () => {
    const victim = events[2]!;
    await app.context.prisma.auditEvent.delete({ where: { id: victim.id } });
    const stand = { ...columnsOf(victim), id: 'stand-in', action: 'auth.signed_out' };
    await app.context.prisma.auditEvent.create({ data: { ...stand, hash: hashEvent(victim.prevHash, stand) } });
    const broken = await runAuditVerify(app);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`event #${victim.seq} (stand-in) was changed`);
    await app.context.prisma.auditEvent.delete({ where: { id: 'stand-in' } });
    await app.context.prisma.auditEvent.create({ data: columnsOf(victim) });
  });
});

describe('pruning', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Events that occurred `daysAgo` days ago (the clock is moved back while they are recorded). */
  async function oldEvents(target: TestApp, userId: string, daysAgo: number, count: number): Promise<void> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - daysAgo * DAY_MS);
    try {
      for (let i = 0; i < count; i++)
        await recordEvent(target.context, target.context.prisma, {
          action: 'account.exported',
          actor: userRef(userId),
          target: userRef(userId),
        });
    } finally {
      vi.useRealTimers();
    }
  }

  it('pruneChain removes the oldest events, and the rest verifies from the oldest kept event', async () => {
    const app = await startTestApp();
    try {
      const user = await app.context.prisma.user.create({ data: { email: 'pruned@example.com' } });
      await oldEvents(app, user.id, 400, 4);
      await someEvents(app, 2);
      const before = await auditRows(app);
      expect(before).toHaveLength(10);
      expect(await app.context.prisma.$transaction((tx) => pruneChain(tx, new Date(Date.now() - 365 * DAY_MS)))).toBe(4);
      const kept = await auditRows(app);
      expect(kept).toEqual(before.slice(4));
      const verified = await runAuditVerify(app);
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toContain(`${kept.length} events`);
      // New events chain on as before.
      await someEvents(app, 1);
      expect(await verifyChain(app.context.prisma)).toEqual({ events: kept.length + 3 });

      // Removing the oldest kept event is detected: the chain starts at it.
      await app.context.prisma.auditEvent.delete({ where: { id: kept[0]!.id } });
      const broken = await runAuditVerify(app);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain(`event #${kept[0]!.seq}`);
      expect(broken.stderr).toContain('removed');
    } finally {
      await app.close();
    }
  }, 30_000);

  it('an event put back before the pruned start is detected', async () => {
    const app = await startTestApp();
    try {
      const user = await app.context.prisma.user.create({ data: { email: 'put-back@example.com' } });
      await oldEvents(app, user.id, 10, 2);
      await someEvents(app, 1);
      const first = (await auditRows(app))[0]!;
      expect(await app.context.prisma.$transaction((tx) => pruneChain(tx, new Date(Date.now() - DAY_MS)))).toBe(2);
      await app.context.prisma.auditEvent.create({ data: columnsOf(first) });
      expect(await verifyChain(app.context.prisma)).toEqual({ seq: first.seq, id: first.id, problem: 'inserted' });
    } finally {
      await app.close();
    }
  });

  it('AUDIT_RETENTION_DAYS prunes older events when the app starts; 0 keeps everything', async () => {
    for (const [days, kept] of [
      ['30', 3],
      ['0', 6],
    ] as const) {
      const app = await startTestApp({ AUDIT_RETENTION_DAYS: days });
      try {
        const user = await app.context.prisma.user.create({ data: { email: `retention-${days}@example.com` } });
        await oldEvents(app, user.id, 31, 3);
        await oldEvents(app, user.id, 29, 3);
        // What the server starts beside requests (the test app starts none by itself).
        const retention = startAuditRetention(app.context);
        await retention.stop();
        expect(await app.context.prisma.auditEvent.count(), `AUDIT_RETENTION_DAYS=${days}`).toBe(kept);
        expect(await verifyChain(app.context.prisma)).toEqual({ events: kept });
      } finally {
        await app.close();
      }
    }
  });
});
