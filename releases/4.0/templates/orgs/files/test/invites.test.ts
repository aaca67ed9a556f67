import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mailer } from '../src/mail/mailer.js';
import { createUserWithToken, linkFrom, startTestApp, uniqueEmail, waitForMail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ INVITE_EXPIRY_DAYS: '3' });
});
afterAll(async () => {
  await app.close();
});

let counter = 0;

async function call(path: string, token?: string, method = 'GET', json?: unknown) {
  const response = await app.request(path, { method, token, json });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function setup() {
  const owner = await createUserWithToken(app);
  await app.context.prisma.user.update({ where: { id: owner.user.id }, data: { name: 'Olivia Owner' } });
  const created = await call('/api/organizations', owner.token, 'POST', { name: 'Invite Co', slug: `invite-co-${++counter}-${Date.now().toString(36)}` });
  const organization = created.body.organization as { id: string; slug: string };
  const invite = (email: string, body: Record<string, unknown> = {}, token = owner.token) =>
    call(`/api/organizations/${organization.id}/invite`, token, 'POST', { email, ...body });
  return { owner, organization, invite };
}

const tokenOf = (inviteUrl: string) => inviteUrl.split('/invite/')[1]!;

describe('invites', () => {
  it('mails a link that shows the invite and joins the invitee, without verifying its email', async () => {
    const { owner, organization, invite } = await setup();
    const email = uniqueEmail();
    const before = app.mails.length;
    const created = await invite(email.toUpperCase(), { role: 'admin' });
    expect(created.status).toBe(201);
    expect(created.body.emailSent).toBe(true);
    expect(created.body.invite).toMatchObject({ email, role: 'admin', organizationId: organization.id, acceptedAt: null, invitedBy: { id: owner.user.id } });
    expect(JSON.stringify(created.body.invite)).not.toContain(tokenOf(created.body.inviteUrl));

    const mail = await waitForMail(app, before + 1);
    expect(mail.to).toBe(email);
    const link = linkFrom(mail, 'http://app.test/invite/');
    expect(link).toBe(created.body.inviteUrl);
    expect(tokenOf(link).length).toBeGreaterThanOrEqual(22);
    const stored = await app.context.prisma.orgInvite.findUniqueOrThrow({ where: { id: created.body.invite.id } });
    expect(stored.tokenHash).not.toContain(tokenOf(link));

    const preview = await call(`/api/organizations/invite/${tokenOf(link)}`);
    expect(preview).toEqual({
      status: 200,
      body: { organization: { name: 'Invite Co', slug: organization.slug }, role: 'admin', invitedBy: { name: 'Olivia Owner' }, expiresAt: created.body.invite.expiresAt },
    });
    const expiresIn = Date.parse(created.body.invite.expiresAt) - Date.now();
    expect(Math.round(expiresIn / 86_400_000)).toBe(3);

    const invitee = await createUserWithToken(app, email);
    const accepted = await call(`/api/organizations/invite/${tokenOf(link)}/accept`, invitee.token, 'POST');
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization).toMatchObject({ id: organization.id, role: 'admin' });
    expect(accepted.body.member).toMatchObject({ userId: invitee.user.id, email, role: 'admin', organizationId: organization.id });
    // The inviter saw the link too, so accepting proves no mailbox.
    expect((await call('/api/auth/me', invitee.token)).body.user.emailVerified).toBe(false);

    const again = await call(`/api/organizations/invite/${tokenOf(link)}/accept`, invitee.token, 'POST');
    expect(again).toEqual(accepted);
    expect((await call(`/api/organizations/${organization.id}/invites`, owner.token)).body.invites).toEqual([]);
  });

  it('refuses to invite a member, an owner, or twice without resend; resend replaces the link', async () => {
    const { owner, organization, invite } = await setup();
    expect((await invite(owner.user.email)).body.error.code).toBe('ALREADY_MEMBER');
    expect((await invite(uniqueEmail(), { role: 'owner' })).status).toBe(400);

    const email = uniqueEmail();
    const first = await invite(email);
    const twice = await invite(email);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('ALREADY_INVITED');
    const resent = await invite(email, { resend: true });
    expect(resent.status).toBe(201);
    expect(resent.body.inviteUrl).not.toBe(first.body.inviteUrl);
    expect(resent.body.invite.id).toBe(first.body.invite.id);
    expect((await call(`/api/organizations/invite/${tokenOf(first.body.inviteUrl)}`)).body.error.code).toBe('INVITE_NOT_FOUND');
    expect((await call(`/api/organizations/invite/${tokenOf(resent.body.inviteUrl)}`)).status).toBe(200);

    const listed = await call(`/api/organizations/${organization.id}/invites`, owner.token);
    expect(listed.body.invites.map((one: { email: string }) => one.email)).toEqual([email]);
    expect(listed.body.nextCursor).toBeNull();
  });

  it('lets admins invite members but not admins, and hides invite management from members', async () => {
    const { organization, invite } = await setup();
    const admin = await createUserWithToken(app);
    const member = await createUserWithToken(app);
    await app.context.prisma.orgMember.createMany({
      data: [
        { organizationId: organization.id, userId: admin.user.id, role: 'admin' },
        { organizationId: organization.id, userId: member.user.id, role: 'member' },
      ],
    });
    expect((await invite(uniqueEmail(), { role: 'admin' }, admin.token)).status).toBe(403);
    const byAdmin = await invite(uniqueEmail(), {}, admin.token);
    expect(byAdmin.status).toBe(201);
    expect((await invite(uniqueEmail(), {}, member.token)).status).toBe(403);
    expect((await call(`/api/organizations/${organization.id}/invites`, member.token)).status).toBe(403);
    expect((await call(`/api/organizations/${organization.id}/invites/${byAdmin.body.invite.id}`, member.token, 'DELETE')).status).toBe(403);
    expect((await call(`/api/organizations/${organization.id}/invites/${byAdmin.body.invite.id}`, admin.token, 'DELETE')).status).toBe(204);
  });

  it("leaves an owner's pending admin invite to owners: an admin can neither resend nor revoke it", async () => {
    const { organization, invite } = await setup();
    const admin = await createUserWithToken(app);
    await app.context.prisma.orgMember.create({ data: { organizationId: organization.id, userId: admin.user.id, role: 'admin' } });
    const email = uniqueEmail();
    const adminInvite = await invite(email, { role: 'admin' });
    const resent = await invite(email, { resend: true }, admin.token);
    expect(resent.status).toBe(403);
    expect(resent.body.error.code).toBe('FORBIDDEN');
    const revoked = await call(`/api/organizations/${organization.id}/invites/${adminInvite.body.invite.id}`, admin.token, 'DELETE');
    expect(revoked.status).toBe(403);
    expect((await call(`/api/organizations/invite/${tokenOf(adminInvite.body.inviteUrl)}`)).body.role).toBe('admin');
  });

  it('answers an invite path that is not valid percent-encoding with 400, not 500', async () => {
    const response = await call('/api/organizations/invite/%ZZ');
    expect(response).toEqual({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: expect.any(String) } } });
  });

  it('quotes the names in the mail and lets no link but its own through', async () => {
    const { owner, invite } = await setup();
    await app.context.prisma.user.update({ where: { id: owner.user.id }, data: { name: 'Support: log in at https://evil.example/login' } });
    const before = app.mails.length;
    await invite(uniqueEmail());
    const mail = await waitForMail(app, before + 1);
    expect(mail.text).toContain('"Support: log in at https[:]//evil[.]example/login" invited you');
    expect(mail.text.match(/https?:\/\//g)).toHaveLength(1);
  });

  it('answers every accept error with its own code', async () => {
    const { owner, organization, invite } = await setup();
    const email = uniqueEmail();
    const invitee = await createUserWithToken(app, email);
    const stranger = await createUserWithToken(app);
    const accept = (url: string, token: string) => call(`/api/organizations/invite/${tokenOf(url)}/accept`, token, 'POST');

    expect((await call('/api/organizations/invite/unknown-token/accept', invitee.token, 'POST')).body.error.code).toBe('INVITE_NOT_FOUND');

    const created = await invite(email);
    const mismatch = await accept(created.body.inviteUrl, stranger.token);
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error.code).toBe('INVITE_EMAIL_MISMATCH');
    expect(JSON.stringify(mismatch.body)).not.toContain(email);

    expect((await call(`/api/organizations/${organization.id}/invites/${created.body.invite.id}`, owner.token, 'DELETE')).status).toBe(204);
    const revoked = await accept(created.body.inviteUrl, invitee.token);
    expect(revoked.status).toBe(410);
    expect(revoked.body.error.code).toBe('INVITE_REVOKED');

    const renewed = await invite(email);
    await app.context.prisma.orgInvite.update({ where: { id: renewed.body.invite.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await accept(renewed.body.inviteUrl, invitee.token);
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('INVITE_EXPIRED');

    const fresh = await invite(email);
    expect((await accept(fresh.body.inviteUrl, invitee.token)).status).toBe(200);
    const used = await accept(fresh.body.inviteUrl, stranger.token);
    expect(used.status).toBe(410);
    expect(used.body.error.code).toBe('INVITE_USED');
    expect((await call(`/api/organizations/invite/${tokenOf(fresh.body.inviteUrl)}`)).body.error.code).toBe('INVITE_USED');
  });

  it('keeps the invite and says emailSent: false when the mail cannot be sent', async () => {
    const { owner, organization, invite } = await setup();
    const working = app.context.mailer;
    const failing: Mailer = { configured: true, send: async () => Promise.reject(new Error('SMTP down')), close: () => {} };
    app.context.mailer = failing;
    try {
      const email = uniqueEmail();
      const created = await invite(email);
      expect(created.status).toBe(201);
      expect(created.body.emailSent).toBe(false);
      const listed = await call(`/api/organizations/${organization.id}/invites`, owner.token);
      expect(listed.body.invites.map((one: { email: string }) => one.email)).toContain(email);
    } finally {
      app.context.mailer = working;
    }
  });

  it('creates one membership when the same invite is accepted many times at once', async () => {
    const { organization, invite } = await setup();
    const email = uniqueEmail();
    const invitee = await createUserWithToken(app, email);
    const created = await invite(email);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call(`/api/organizations/invite/${tokenOf(created.body.inviteUrl)}/accept`, invitee.token, 'POST')),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((answer) => answer.body.member.id)).size).toBe(1);
    expect(await app.context.prisma.orgMember.count({ where: { organizationId: organization.id, userId: invitee.user.id } })).toBe(1);
  });
});
