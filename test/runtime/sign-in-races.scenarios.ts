/**
 * Issue 31, item 1 (high): a sign-in that races a revocation of its user must not keep a session
 * (CONTRACT B.2, "No sign-in outlives a revocation that happened while it ran").
 *
 * A password login reads the account, then spends a bcrypt check (production cost 12, about a
 * quarter of a second here) before its session starts. Each race below fires the revocation so
 * that it lands inside that check, at several points of it, on a fresh account each time:
 * - the squatter of a provisional account logs in while the owner proves the mailbox by magic
 *   link or by password reset (the take-over);
 * - an old-password login while the owner changes the password.
 *
 * Whatever the interleaving, afterwards the account has no session but the owner's: the loser's
 * login either answered 401 INVALID_CREDENTIALS, or the session it got is already dead (its access
 * token 401, its refresh token 401). Release 4.0 left the squatter a live 90-day session.
 *
 * Issue 33 adds two revocations of the same kind (CONTRACT B.2, B.15): an admin's ban (the login
 * then answers 403 ACCOUNT_BANNED, as after the ban) and the account's deletion by its owner.
 */
import { expect, it } from 'vitest';
import { uniqueEmail, type Account } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import type { RunningApp } from '../helpers/running-app.js';

const SQUATTER_PASSWORD = 'the squatter typed this';
const OWNER_PASSWORD = 'the owner chose this one';
/** Where in the loser's bcrypt check the revocation is fired, as fractions of a check's time. */
const POINTS = [0.1, 0.3, 0.5, 0.7, 0.9];

type Reply = Awaited<ReturnType<typeof call>>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `admin`: a signed-in admin of the app (made with `npm run admin -- grant`), for the ban's race. */
export function describeSignInRaces(running: () => RunningApp, admin: () => Promise<Account>): void {
  const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running().app.url, path, init);
  const login = (email: string, password: string) => api('/api/auth/login', { json: { email, password } });

  /** The time of one login's password check here: the median of five wrong-password logins. */
  async function checkTime(email: string): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      expect((await login(email, 'not the password at all')).status).toBe(401);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[2]!;
  }

  async function registerSquatter(email: string): Promise<void> {
    expect((await api('/api/auth/register', { json: { email, password: SQUATTER_PASSWORD } })).status).toBe(201);
  }

  async function mailedToken(email: string, send: () => Promise<Reply>, prefix: string): Promise<string> {
    const since = running().mail.messages.length;
    expect((await send()).status).toBe(202);
    const mail = await running().mail.waitForMail(email, { since });
    return new URL(linkFrom(mail, `${running().env().APP_URL}${prefix}`)).searchParams.get('token')!;
  }

  /**
   * The losing login holds no session now: it was refused with INVALID_CREDENTIALS, or what it
   * got no longer works. And the account's only live session is the winner's.
   */
  async function expectNoSessionOutlived(lost: Reply, winner: Reply, label: string): Promise<void> {
    expect(winner.status, `${label}: the revocation itself: ${JSON.stringify(winner.body)}`).toBe(200);
    if (lost.status === 200) {
      expect((await api('/api/auth/me', { token: lost.body.token })).status, `${label}: the login's access token`).toBe(401);
      expect((await api('/api/auth/refresh', { json: { refreshToken: lost.body.refreshToken } })).status, `${label}: its refresh token`).toBe(401);
    } else {
      expect(lost.status, `${label}: ${JSON.stringify(lost.body)}`).toBe(401);
      expect(lost.body.error.code, label).toBe('INVALID_CREDENTIALS');
    }
    const sessions = await api('/api/auth/sessions', { token: winner.body.token });
    expect(sessions.status, label).toBe(200);
    expect(sessions.body.sessions.map((session: { current: boolean }) => session.current), `${label}: live sessions`).toEqual([true]);
  }

  it('a squatter login in flight while the owner proves the mailbox by magic link keeps no session, at any point of its password check', async () => {
    const probe = uniqueEmail('race-probe');
    await registerSquatter(probe);
    const check = await checkTime(probe);
    for (const point of POINTS) {
      const email = uniqueEmail('race-link');
      await registerSquatter(email);
      const token = await mailedToken(email, () => api('/api/auth/magic-link/send', { json: { email } }), '/magic-link?token=');
      const squatter = login(email, SQUATTER_PASSWORD);
      await sleep(check * point);
      const owner = await api('/api/auth/magic-link/verify', { json: { token } });
      await expectNoSessionOutlived(await squatter, owner, `magic link at ${point} of ${Math.round(check)} ms`);
    }
  }, 120_000);

  it('a squatter login in flight while the owner resets the password keeps no session, at any point of its password check', async () => {
    const probe = uniqueEmail('race-probe');
    await registerSquatter(probe);
    const check = await checkTime(probe);
    for (const point of POINTS) {
      const email = uniqueEmail('race-reset');
      await registerSquatter(email);
      const token = await mailedToken(email, () => api('/api/auth/password/forgot', { json: { email } }), '/reset-password?token=');
      // The reset hashes the new password first (one check's time), then takes the account over:
      // the squatter's login, started `point` of a check later, is inside its own check then.
      const owner = api('/api/auth/password/reset', { json: { token, password: OWNER_PASSWORD } });
      await sleep(check * point);
      const squatter = await login(email, SQUATTER_PASSWORD);
      await expectNoSessionOutlived(squatter, await owner, `reset at ${point} of ${Math.round(check)} ms`);
    }
  }, 120_000);

  /** The losing login of a race with an event that removes the account's every way in: refused, or its session already dead. */
  async function expectLoginLost(lost: Reply, refusal: [number, string], label: string): Promise<void> {
    if (lost.status === 200) {
      expect((await api('/api/auth/me', { token: lost.body.token })).status, `${label}: the login's access token`).toBe(401);
      expect((await api('/api/auth/refresh', { json: { refreshToken: lost.body.refreshToken } })).status, `${label}: its refresh token`).toBe(401);
    } else {
      expect([lost.status, lost.body.error?.code], `${label}: ${JSON.stringify(lost.body)}`).toEqual(refusal);
    }
  }

  it('a login in flight while an admin bans the user keeps no session (403 ACCOUNT_BANNED), at any point of its password check', async () => {
    const probe = uniqueEmail('race-probe');
    await registerSquatter(probe);
    const check = await checkTime(probe);
    const { token } = await admin();
    for (const point of POINTS) {
      const email = uniqueEmail('race-ban');
      const registered = await api('/api/auth/register', { json: { email, password: SQUATTER_PASSWORD } });
      const userId = registered.body.user.id;
      const signingIn = login(email, SQUATTER_PASSWORD);
      await sleep(check * point);
      const banned = await api(`/api/admin/users/${userId}/ban`, { token, json: { reason: 'race' } });
      expect(banned.status, JSON.stringify(banned.body)).toBe(200);
      const label = `ban at ${point} of ${Math.round(check)} ms`;
      await expectLoginLost(await signingIn, [403, 'ACCOUNT_BANNED'], label);
      const detail = await api(`/api/admin/users/${userId}`, { token });
      expect(detail.body.sessions, `${label}: live sessions`).toEqual([]);
    }
  }, 120_000);

  it("a login in flight while the owner deletes the account keeps no session, at any point of its password check", async () => {
    const probe = uniqueEmail('race-probe');
    await registerSquatter(probe);
    const check = await checkTime(probe);
    for (const point of POINTS) {
      const email = uniqueEmail('race-delete');
      const registered = await api('/api/auth/register', { json: { email, password: SQUATTER_PASSWORD } });
      const signingIn = login(email, SQUATTER_PASSWORD);
      await sleep(check * point);
      const deleted = await api('/api/auth/account', { method: 'DELETE', token: registered.body.token, json: { confirm: email } });
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      await expectLoginLost(await signingIn, [401, 'INVALID_CREDENTIALS'], `deletion at ${point} of ${Math.round(check)} ms`);
    }
  }, 120_000);

  it('an old-password login in flight while the password is changed keeps no session, at any point of its password check', async () => {
    const probe = uniqueEmail('race-probe');
    await registerSquatter(probe);
    const check = await checkTime(probe);
    for (const point of POINTS) {
      const email = uniqueEmail('race-change');
      const registered = await api('/api/auth/register', { json: { email, password: SQUATTER_PASSWORD } });
      // The change checks the current password, hashes the new one, then revokes: about two checks
      // after it starts. The login started one check plus `point` later reads the account before
      // that and starts its session after it.
      const owner = api('/api/auth/password/change', { token: registered.body.token, json: { currentPassword: SQUATTER_PASSWORD, newPassword: OWNER_PASSWORD } });
      await sleep(check * (1 + point));
      const oldPassword = await login(email, SQUATTER_PASSWORD);
      await expectNoSessionOutlived(oldPassword, await owner, `change at ${1 + point} of ${Math.round(check)} ms`);
    }
  }, 120_000);
}
