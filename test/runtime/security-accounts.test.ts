/**
 * Issue 22's findings on accounts, replayed against the full fixture (jwt, magic-link, every OAuth
 * provider, the hosted services, totp, orgs) running as its own process, with a real SMTP server
 * and the local stand-ins of test/helpers/fake-hosted. Each describe is one finding; each test
 * performs the attack and asserts that it fails as CONTRACT B.2, B.7 and B.8 say. The comment
 * above each test says how it went before the fix.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail, type Account } from '../helpers/accounts.js';
import { nowSeconds } from '../helpers/fake-hosted/ids.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { TEST_APP_URL } from '../helpers/running-app.js';
import { openSqlite, sqliteDate } from '../helpers/sqlite-file.js';
import { nextCode, wrongCode, type TotpDevice } from '../helpers/totp-codes.js';
import {
  authjsExchange,
  authjsSignIn,
  enableTwoFactor,
  expectError,
  expectSignedIn,
  MFA_ANSWER,
  PASSWORD,
  TOKEN_SERVICES,
  useHostedApp,
  type Reply,
} from './hosted.scenarios.js';

const OWNER_PASSWORD = 'the real owner chose this';

let fixture: PreparedFixture;
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const hosted = useHostedApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'security-accounts') });
const api = hosted.api;

/** The owner of an address proves the mailbox with a password-reset link (the mailed link, then the reset). */
async function resetByMail(email: string, password = OWNER_PASSWORD): Promise<Reply> {
  const since = hosted.running.mail.messages.length;
  expect((await api('/api/auth/password/forgot', { json: { email } })).status).toBe(202);
  const link = linkFrom(await hosted.running.mail.waitForMail(email, { since }), `${TEST_APP_URL}/reset-password?token=`);
  const token = new URL(link).searchParams.get('token')!;
  hosted.secrets.push(token);
  return api('/api/auth/password/reset', { json: { token, password } });
}

function query<Row>(sql: string, ...params: unknown[]): Row[] {
  const db = openSqlite(hosted.running.databaseUrl, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as Row[];
  } finally {
    db.close();
  }
}

describe('finding 4 (low): 2FA guessing outside the per-account lock', () => {
  async function twoFactorAccount(): Promise<{ account: Account; device: TotpDevice & { recoveryCodes: string[] } }> {
    const account = await register(hosted.running, { password: PASSWORD, verified: true });
    const setup = await api('/api/auth/2fa/setup', { method: 'POST', token: account.token });
    const device = { secret: setup.body.secret as string, lastStep: -1, recoveryCodes: [] as string[] };
    hosted.secrets.push(device.secret);
    const enabled = await api('/api/auth/2fa/enable', { token: account.token, json: { code: await nextCode(device) } });
    expect(enabled.status).toBe(200);
    device.recoveryCodes = enabled.body.recoveryCodes;
    return { account, device };
  }

  function expectLocked(reply: Reply, route: string): void {
    expect(reply.status, `${route}: ${JSON.stringify(reply.body)}`).toBe(429);
    expect(reply.body.error.code).toBe('RATE_LIMITED');
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
  }

  // Before: a stolen fresh session guessed codes at /2fa/disable and /2fa/recovery-codes without
  // limit (RATE_LIMIT_MAX=0 here, and per IP only otherwise): none counted, and after ten wrong
  // guesses the right code still turned two-factor off (200).
  it('wrong codes at /2fa/disable and /2fa/recovery-codes count: the 10th is 401, then all three routes answer 429, right code or not; the owner is told', async () => {
    const { account, device } = await twoFactorAccount();
    const since = hosted.running.mail.messages.length;
    const guesses: [string, Record<string, string>][] = [];
    for (let i = 0; i < 10; i++) {
      if (i % 3 === 0) guesses.push(['/api/auth/2fa/disable', { code: wrongCode(device.secret) }]);
      else if (i % 3 === 1) guesses.push(['/api/auth/2fa/disable', { recoveryCode: `wrong-${i}` }]);
      else guesses.push(['/api/auth/2fa/recovery-codes', { code: wrongCode(device.secret) }]);
    }
    for (const [route, guess] of guesses) expectError(await api(route, { token: account.token, json: guess }), 401, 'INVALID_CODE');

    const right = await nextCode(device);
    expectLocked(await api('/api/auth/2fa/disable', { token: account.token, json: { code: right } }), 'disable');
    expectLocked(await api('/api/auth/2fa/disable', { token: account.token, json: { recoveryCode: device.recoveryCodes[0] } }), 'disable (recovery code)');
    expectLocked(await api('/api/auth/2fa/recovery-codes', { token: account.token, json: { code: right } }), 'recovery-codes');
    const login = await api('/api/auth/login', { json: { email: account.email, password: PASSWORD } });
    expect(login.body).toEqual(MFA_ANSWER);
    hosted.secrets.push(login.body.mfaToken);
    expectLocked(await api('/api/auth/2fa/verify', { json: { mfaToken: login.body.mfaToken, code: right } }), 'verify');

    expect((await api('/api/auth/me', { token: account.token })).body.user.twoFactorEnabled).toBe(true);
    const alert = await hosted.running.mail.waitForMail(account.email, { since, subject: /paused/i });
    expect(alert.text).toMatch(/10 wrong two-factor codes/);
  }, 90_000);

  // Before: sign-in's wrong codes locked only sign-in; a session could keep guessing at the other two.
  it('wrong codes at sign-in and at the signed-in routes add up to one lock', async () => {
    const { account, device } = await twoFactorAccount();
    for (let i = 0; i < 5; i++) {
      const login = await api('/api/auth/login', { json: { email: account.email, password: PASSWORD } });
      hosted.secrets.push(login.body.mfaToken);
      expectError(await api('/api/auth/2fa/verify', { json: { mfaToken: login.body.mfaToken, code: wrongCode(device.secret) } }), 401, 'INVALID_CODE');
    }
    for (let i = 0; i < 5; i++) {
      const route = i % 2 ? '/api/auth/2fa/recovery-codes' : '/api/auth/2fa/disable';
      expectError(await api(route, { token: account.token, json: { code: wrongCode(device.secret) } }), 401, 'INVALID_CODE');
    }
    expectLocked(await api('/api/auth/2fa/disable', { token: account.token, json: { code: await nextCode(device) } }), 'disable');
  }, 90_000);
});

describe("finding 9d (low): a squatter's organizations and co-owners survive the owner's take-over", () => {
  const inviteTokenOf = (inviteUrl: string) => inviteUrl.split('/invite/')[1]!;

  // Before: the owner's reset kept the account's memberships: the owner found themselves owner of
  // the squatter's organizations, next to the co-owner the squatter had added, and invites the
  // squatter sent in the owner's name stayed usable.
  it('the take-over removes every membership (deleting organizations the account alone owned) and revokes the invites it sent', async () => {
    const squatter = await register(hosted.running, { password: PASSWORD });
    const accomplice = await register(hosted.running, { password: PASSWORD, verified: true });
    const friend = uniqueEmail('friend');

    // An organization the squatter alone owns, with a plain member (the accomplice).
    const alone = (await api('/api/organizations', { token: squatter.token, json: { name: 'Squatter Alone' } })).body.organization;
    const joinAlone = await api(`/api/organizations/${alone.id}/invite`, { token: squatter.token, json: { email: accomplice.email } });
    expect((await api(`/api/organizations/invite/${inviteTokenOf(joinAlone.body.inviteUrl)}/accept`, { method: 'POST', token: accomplice.token })).status).toBe(200);
    // One the squatter owns with the accomplice as co-owner, and a pending invite sent by the squatter.
    const shared = (await api('/api/organizations', { token: squatter.token, json: { name: 'Squatter Shared' } })).body.organization;
    const joinShared = await api(`/api/organizations/${shared.id}/invite`, { token: squatter.token, json: { email: accomplice.email, role: 'admin' } });
    const accepted = await api(`/api/organizations/invite/${inviteTokenOf(joinShared.body.inviteUrl)}/accept`, { method: 'POST', token: accomplice.token });
    expect((await api(`/api/organizations/${shared.id}/members/${accepted.body.member.id}/role`, { method: 'PUT', token: squatter.token, json: { role: 'owner' } })).status).toBe(200);
    const pending = await api(`/api/organizations/${shared.id}/invite`, { token: squatter.token, json: { email: friend } });
    expect(pending.status).toBe(201);
    hosted.secrets.push(inviteTokenOf(pending.body.inviteUrl));
    // One of the accomplice's, which the squatter joined.
    const theirs = (await api('/api/organizations', { token: accomplice.token, json: { name: 'Accomplice Own' } })).body.organization;
    const joinTheirs = await api(`/api/organizations/${theirs.id}/invite`, { token: accomplice.token, json: { email: squatter.email } });
    expect((await api(`/api/organizations/invite/${inviteTokenOf(joinTheirs.body.inviteUrl)}/accept`, { method: 'POST', token: squatter.token })).status).toBe(200);

    const owner = await resetByMail(squatter.email);
    await expectSignedIn(hosted, owner, { id: squatter.userId, emailVerified: true });

    expect((await api('/api/organizations', { token: owner.body.token })).body.organizations).toEqual([]);
    for (const org of [alone, shared, theirs]) expectError(await api(`/api/organizations/${org.id}`, { token: owner.body.token }), 404, 'NOT_FOUND');
    // The organization the squatter alone owned is gone (for its member too); the others are the accomplice's alone.
    expectError(await api(`/api/organizations/${alone.id}`, { token: accomplice.token }), 404, 'NOT_FOUND');
    for (const org of [shared, theirs]) {
      const members = await api(`/api/organizations/${org.id}/members`, { token: accomplice.token });
      expect(members.body.members.map((member: { userId: string }) => member.userId)).toEqual([accomplice.userId]);
    }
    expectError(await api(`/api/organizations/invite/${inviteTokenOf(pending.body.inviteUrl)}`), 410, 'INVITE_REVOKED');
    const invitee = await register(hosted.running, { email: friend, password: PASSWORD });
    expectError(await api(`/api/organizations/invite/${inviteTokenOf(pending.body.inviteUrl)}/accept`, { method: 'POST', token: invitee.token }), 410, 'INVITE_REVOKED');
  });
});

describe('finding 9e (low, hosted part): no bound on when a hosted token was issued or how long it lives', () => {
  // Before: jose checks iat only against a maximum age, which the app never set, so Auth0 and
  // Supabase tokens minted an hour ahead were accepted (200). Clerk's SDK already refused them.
  for (const service of TOKEN_SERVICES) {
    it(`${service.name}: a token issued more than 60 s in the future is 401 INVALID_TOKEN, and links nothing`, async () => {
      const iat = nowSeconds() + 3600;
      const { subject, token } = await hosted.serviceToken(service, uniqueEmail(service.id), true, { claims: { iat, nbf: nowSeconds() - 10, exp: iat + 60 } });
      expectError(await hosted.exchange(service.id, token), 401, 'INVALID_TOKEN');
      expect(query('SELECT id FROM Account WHERE provider = ? AND providerAccountId = ?', service.id, subject)).toEqual([]);
    });
  }

  // Before: a Clerk "session token" valid for ten years was accepted (200), though Clerk's live 60 s.
  it('Clerk: a token that lives longer than an hour is 401 INVALID_TOKEN; one of exactly an hour passes', async () => {
    const clerk = TOKEN_SERVICES.find((service) => service.id === 'clerk')!;
    const now = nowSeconds();
    for (const lifetime of [10 * 365 * 86_400, 3601]) {
      const { token } = await hosted.serviceToken(clerk, uniqueEmail('clerk'), true, { claims: { iat: now - 5, nbf: now - 10, exp: now - 5 + lifetime } });
      expectError(await hosted.exchange('clerk', token), 401, 'INVALID_TOKEN');
    }
    const email = uniqueEmail('clerk');
    const { token } = await hosted.serviceToken(clerk, email, true, { claims: { iat: now - 5, nbf: now - 10, exp: now - 5 + 3600 } });
    await expectSignedIn(hosted, await hosted.exchange('clerk', token), { email });
  });
});

describe('finding 9f (low): logout leaves the Auth.js session alive', () => {
  // Before: logout revoked the app's token only; the same browser exchanged its Auth.js session
  // again (200) and was signed straight back in.
  it('after logout, the browser that signed in through Auth.js cannot exchange its session again', async () => {
    const { reply, jar } = await authjsSignIn(hosted, uniqueEmail('authjs'));
    await expectSignedIn(hosted, reply, { emailVerified: true });
    expect((await api('/api/auth/logout', { method: 'POST', token: reply.body.token })).status).toBe(204);
    expectError(await authjsExchange(hosted, jar), 401, 'INVALID_TOKEN');
  });

  // Before: the same, with the sign-in finished by the second factor.
  it('also when the exchange ended in the second factor', async () => {
    const first = await authjsSignIn(hosted, uniqueEmail('authjs'));
    const device = await enableTwoFactor(hosted, first.reply.body.token);
    const { reply, jar } = await authjsSignIn(hosted, first.reply.body.user.email);
    expect(reply.body).toEqual(MFA_ANSWER);
    hosted.secrets.push(reply.body.mfaToken);
    const verified = await api('/api/auth/2fa/verify', { json: { mfaToken: reply.body.mfaToken, code: await nextCode(device) } });
    await expectSignedIn(hosted, verified, { id: first.reply.body.user.id });
    expect((await api('/api/auth/logout', { method: 'POST', token: verified.body.token })).status).toBe(204);
    expectError(await authjsExchange(hosted, jar), 401, 'INVALID_TOKEN');
  }, 60_000);
});

describe('finding 11a: a take-over deleted identities before looking up the Auth.js sessions through them', () => {
  /**
   * A squatter's Auth.js session for the victim's address, as an OAuth provider added to Auth.js
   * leaves it (Auth.js never reports such an address verified): the exchange makes it a
   * provisional account with an Auth.js identity.
   */
  function squattersAuthjsSession(email: string): { cookie: string; authjsUserId: string } {
    const sessionToken = randomBytes(32).toString('hex');
    hosted.secrets.push(sessionToken);
    const authjsUserId = `authjs-squatter-${Date.now()}`;
    const db = openSqlite(hosted.running.databaseUrl);
    try {
      db.prepare('INSERT INTO AuthjsUser (id, email, emailVerified, createdAt) VALUES (?, ?, NULL, ?)').run(authjsUserId, email, sqliteDate(Date.now()));
      db.prepare('INSERT INTO AuthjsAccount (id, userId, type, provider, providerAccountId, createdAt) VALUES (?, ?, ?, ?, ?, ?)').run(
        `account-${authjsUserId}`,
        authjsUserId,
        'oauth',
        'github',
        `gh-${authjsUserId}`,
        sqliteDate(Date.now()),
      );
      db.prepare('INSERT INTO AuthjsSession (id, sessionTokenHash, userId, expires, createdAt) VALUES (?, ?, ?, ?, ?)').run(
        `session-${authjsUserId}`,
        createHash('sha256').update(sessionToken).digest('hex'),
        authjsUserId,
        sqliteDate(Date.now() + 3_600_000),
        sqliteDate(Date.now()),
      );
    } finally {
      db.close();
    }
    return { cookie: `authjs.session-token=${sessionToken}`, authjsUserId };
  }

  const exchangeWith = (cookie: string) => api('/api/auth/authjs/exchange', { method: 'POST', headers: { cookie } });

  // Before: the take-over removed the account's identities first, so ending the Auth.js sessions
  // of its Auth.js identities found none, and the squatter's session outlived the take-over (its
  // exchange then answered 409 ACCOUNT_EXISTS instead of 401, and the session row stayed).
  it("the owner's take-over ends the squatter's Auth.js session: it can no longer be exchanged", async () => {
    const email = uniqueEmail('victim');
    const squatter = squattersAuthjsSession(email);
    const provisional = await exchangeWith(squatter.cookie);
    await expectSignedIn(hosted, provisional, { email, emailVerified: false });
    expect((await api('/api/auth/identities', { token: provisional.body.token })).body.identities).toMatchObject([{ provider: 'authjs' }]);

    const owner = await resetByMail(email);
    await expectSignedIn(hosted, owner, { id: provisional.body.user.id, emailVerified: true });
    expect((await api('/api/auth/me', { token: provisional.body.token })).status).toBe(401);

    expectError(await exchangeWith(squatter.cookie), 401, 'INVALID_TOKEN');
    expect(query('SELECT id FROM AuthjsSession WHERE userId = ?', squatter.authjsUserId)).toEqual([]);
    expect((await api('/api/auth/identities', { token: owner.body.token })).body.identities).toEqual([]);
  });
});
