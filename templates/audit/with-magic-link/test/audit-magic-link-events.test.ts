import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, linkFrom, startTestApp, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

// The events of sign-in links (B.16 rule 3 with magic-link): a first link registers, each link signs
// in, a used link is a failed sign-in, and the first link to a provisional account takes it over.

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function requestLink(email: string): Promise<string> {
  const before = app.mails.length;
  expect((await call(app, '/api/auth/magic-link/send', { method: 'POST', json: { email } })).status).toBe(202);
  await waitForMail(app, before + 1);
  const mail = app.mails.slice(before).find((candidate) => candidate.to === email);
  const token = new URL(linkFrom(mail, 'http://app.test/magic-link?token=')).searchParams.get('token')!;
  secrets.add(token);
  return token;
}

async function verify(token: string, agent = 'link agent') {
  const answer = await call(app, '/api/auth/magic-link/verify', { method: 'POST', json: { token }, headers: clientHeaders(agent) });
  secrets.addFrom(answer.body);
  return answer;
}

describe('sign-in link events', () => {
  it('records the first link as a registration and a sign-in of method magic_link', async () => {
    const email = uniqueEmail('link');
    const answer = await verify(await requestLink(email));
    expect(answer.status).toBe(200);
    const userId = answer.body.user.id as string;
    const rows = await auditRows(app, { targetId: userId });
    expect(rows.map((row) => row.action)).toEqual(['auth.registered', 'auth.signed_in']);
    const self = { type: 'user', id: userId };
    expectEvent(rows[0]!, { actor: self, target: self, ip: '127.0.0.1', userAgent: 'link agent', metadata: { method: 'magic_link' } });
    expectEvent(rows[1]!, { actor: self, target: self, userAgent: 'link agent', metadata: { method: 'magic_link' } });
  });

  it('records a used link as a failed sign-in, with no target and no token', async () => {
    const token = await requestLink(uniqueEmail('link'));
    expect((await verify(token)).status).toBe(200);
    const before = await app.context.prisma.auditEvent.count();
    expect((await verify(token, 'replay agent')).status).toBe(401);
    const [failed] = await auditRows(app, { seq: { gt: before } });
    expectEvent(failed!, {
      actor: { type: 'user', id: null },
      target: null,
      userAgent: 'replay agent',
      metadata: { method: 'magic_link', reason: 'invalid_token' },
    });
  });

  it('records the take-over of a provisional account by the owner of the mailbox', async () => {
    const squatter = await createUserWithToken(app, uniqueEmail('squatted'));
    secrets.add(squatter.token, squatter.refreshToken);
    expect((await verify(await requestLink(squatter.user.email), 'owner agent')).status).toBe(200);
    const self = { type: 'user', id: squatter.user.id };
    expectEvent(await onlyEvent(app, 'account.taken_over', { targetId: squatter.user.id }), {
      actor: self,
      target: self,
      userAgent: 'owner agent',
    });
    expect((await auditRows(app, { targetId: squatter.user.id })).map((row) => row.action)).toEqual([
      'auth.signed_in',
      'account.taken_over',
      'auth.signed_in',
    ]);
  });
});

describe('secrets', () => {
  it('no event holds a link token, access token or refresh token this file saw', async () => {
    expect(secrets.size).toBeGreaterThan(10);
    await secrets.expectNoneIn(app);
  });
});
