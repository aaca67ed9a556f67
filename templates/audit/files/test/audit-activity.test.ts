import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, userRef } from '../src/modules/auth/events.js';
import { auditRows, call } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// GET /api/auth/activity (B.16 rule 5): the caller's own events, as actor or target, newest first,
// a keyset page at a time, with the filters action, since and until (inclusive).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const activity = (token: string, query = '') => call(app, `/api/auth/activity${query}`, { token });

/** Every page of the caller's activity for `query`, following nextCursor, `limit` events at a time. */
async function allPages(token: string, query: Record<string, string>, limit: number) {
  const pages: { id: string; action: string }[][] = [];
  let cursor: string | null = null;
  do {
    const answer = await activity(token, `?${new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) })}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    pages.push(answer.body.events);
    cursor = answer.body.nextCursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return pages;
}

describe('whose events', () => {
  it("never shows another user's events, whatever the filters and parameters ask", async () => {
    const victim = await createUserWithToken(app, uniqueEmail('victim'));
    const attacker = await createUserWithToken(app, uniqueEmail('attacker'));
    expect((await call(app, '/api/auth/account/export', { token: victim.token })).status).toBe(200);
    const victimEvents = (await auditRows(app, { OR: [{ actorId: victim.user.id }, { targetId: victim.user.id }] })).map((row) => row.id);
    expect(victimEvents.length).toBe(2);
    for (const query of [
      '',
      '?action=account.exported',
      `?actorId=${victim.user.id}`,
      `?targetId=${victim.user.id}`,
      `?userId=${victim.user.id}`,
      '?since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z',
      '?cursor=2147483647',
    ]) {
      const answer = await activity(attacker.token, query);
      expect(answer.status, query).toBe(200);
      const ids = answer.body.events.map((event: { id: string }) => event.id);
      expect(
        ids.filter((id: string) => victimEvents.includes(id)),
        query,
      ).toEqual([]);
      for (const event of answer.body.events) expect([event.actor.id, event.target?.id], query).toContain(attacker.user.id);
    }
  });

  it('needs a signed-in caller', async () => {
    const answer = await call(app, '/api/auth/activity');
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('UNAUTHENTICATED');
  });

  it("shows the caller's events as actor and as target, newest first, in the shape of B.16", async () => {
    const { user, token } = await createUserWithToken(app);
    // Done by the user: an export. Done to the user by someone else: an admin's (or the app's) action.
    expect((await call(app, '/api/auth/account/export', { token, headers: { 'user-agent': 'activity agent' } })).status).toBe(200);
    await recordEvent(app.context, app.context.prisma, {
      action: 'session.ended',
      actor: { type: 'system', id: null },
      target: userRef(user.id),
      metadata: { otherSessions: 0 },
    });
    const answer = await activity(token);
    expect(answer.status).toBe(200);
    expect(answer.body.nextCursor).toBeNull();
    expect(answer.body.events.map((event: { action: string }) => event.action)).toEqual([
      'session.ended',
      'account.exported',
      'auth.signed_in',
    ]);
    const exported = answer.body.events[1];
    expect(exported).toEqual({
      id: expect.any(String),
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      action: 'account.exported',
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      organizationId: null,
      ip: '127.0.0.1',
      userAgent: 'activity agent',
      metadata: {},
    });
    const times = answer.body.events.map((event: { occurredAt: string }) => Date.parse(event.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

describe('pages and filters', () => {
  it('pages with nextCursor, newest first, with no event twice or missing, and a new event does not shift the pages', async () => {
    const { token } = await createUserWithToken(app);
    for (let i = 0; i < 6; i++) expect((await call(app, '/api/auth/account/export', { token })).status).toBe(200);
    const everything = (await activity(token)).body.events.map((event: { id: string }) => event.id);
    expect(everything).toHaveLength(7);

    const first = await activity(token, '?limit=3');
    expect(first.body.events).toHaveLength(3);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    // An event recorded between two pages lands before the first page, not in the next one.
    expect((await call(app, '/api/auth/account/export', { token })).status).toBe(200);
    const second = await activity(token, `?limit=3&cursor=${first.body.nextCursor}`);
    const third = await activity(token, `?limit=3&cursor=${second.body.nextCursor}`);
    expect(third.body.nextCursor).toBeNull();
    const paged = [first, second, third].flatMap((page) => page.body.events.map((event: { id: string }) => event.id));
    expect(paged).toEqual(everything);

    const again = await allPages(token, {}, 2);
    expect(again.map((page) => page.length)).toEqual([2, 2, 2, 2]);
    expect(
      again
        .flat()
        .map((event) => event.id)
        .slice(1),
    ).toEqual(everything);
  });

  it('filters by action', async () => {
    const { token } = await createUserWithToken(app);
    for (let i = 0; i < 3; i++) expect((await call(app, '/api/auth/account/export', { token })).status).toBe(200);
    const pages = await allPages(token, { action: 'account.exported' }, 2);
    expect(pages.flat().map((event) => event.action)).toEqual(['account.exported', 'account.exported', 'account.exported']);
    expect((await activity(token, '?action=auth.signed_in')).body.events).toHaveLength(1);
    expect((await activity(token, '?action=auth.signed_out')).body.events).toEqual([]);
  });

  it('filters by since and until, both inclusive', async () => {
    const { user, token } = await createUserWithToken(app);
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await call(app, '/api/auth/account/export', { token })).status).toBe(200);
    }
    const rows = await auditRows(app, { targetId: user.id });
    expect(rows).toHaveLength(4);
    const at = (index: number) => rows[index]!.occurredAt.toISOString();
    const ids = (answer: { body: { events: { id: string }[] } }) => answer.body.events.map((event) => event.id);
    expect(ids(await activity(token, `?since=${at(1)}&until=${at(2)}`))).toEqual([rows[2]!.id, rows[1]!.id]);
    expect(ids(await activity(token, `?since=${at(3)}`))).toEqual([rows[3]!.id]);
    expect(ids(await activity(token, `?until=${at(0)}`))).toEqual([rows[0]!.id]);
    expect(ids(await activity(token, `?since=${encodeURIComponent(at(3).replace('Z', '+00:00'))}`))).toEqual([rows[3]!.id]);
    expect(ids(await activity(token, `?since=${at(3)}&until=${at(0)}`))).toEqual([]);
  });

  it('answers 400 VALIDATION_ERROR for a bad filter, naming it', async () => {
    const { token } = await createUserWithToken(app);
    for (const [query, path] of [
      ['?action=NOT%20AN%20ACTION', 'action'],
      ['?action=auth', 'action'],
      ['?action=a.b&action=c.d', 'action'],
      ['?since=yesterday', 'since'],
      ['?since=2026-01-31', 'since'],
      ['?until=2026-13-01T00:00:00Z', 'until'],
      ['?cursor=abc', 'cursor'],
      ['?cursor=-5', 'cursor'],
      [`?cursor=${Number.MAX_SAFE_INTEGER}`, 'cursor'],
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
    ]) {
      const answer = await activity(token, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code, query).toBe('VALIDATION_ERROR');
      expect(
        answer.body.error.details.map((detail: { path: string }) => detail.path),
        query,
      ).toContain(path);
    }
  });
});
