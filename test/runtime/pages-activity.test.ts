/**
 * The account page's recent security activity (CONTRACT B.16 rule 8), in Chromium against the full
 * fixture (pages and audit): a sign-in through the page is the newest event, with its time, address
 * and browser; a failed sign-in from another client, sent with a hostile user agent, and a key with
 * a hostile name are shown as text, never as HTML; a password change made on the page shows at
 * once; "Show older activity" follows nextCursor to the oldest event with none missed or repeated. Screenshots go to test/tmp/screenshots/activity-*.png.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { screenshot, signInThroughPages, useBrowser } from '../helpers/browser.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { useRunningApp } from '../helpers/running-app.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 1_200_000 });

const PASSWORD = 'correct horse battery staple';
const HOSTILE_AGENT = '<img src=x onerror=alert(1)>';
const HOSTILE_NAME = '<img src=x onerror=alert(2)>';
/** The rows a registration leaves, newest first: it signs the new account in. */
const REGISTERED = ['Signed in with a password', 'Account created with a password'];

let fixture: PreparedFixture;
const browser = useBrowser();
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({
  fixture: () => fixture,
  databaseUrl: () => copyOfDevDatabase(fixture, 'pages-activity'),
  appUrlIsSelf: true,
});
const url = (pathname = '/') => `${running.env().APP_URL}${pathname}`;
const api = (pathname: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, pathname, init);

/** What each row of the activity list says first (its <strong>), top to bottom. */
const headlines = (page: Page) => page.locator('#activity-list li strong').allTextContents();

/** The user's events as the API lists them, newest first (one page of up to 200). */
async function eventsOf(token: string) {
  const { status, body } = await api('/api/auth/activity?limit=200', { token });
  expect(status).toBe(200);
  return body.events as { action: string; occurredAt: string; ip: string; userAgent: string }[];
}

describe('recent security activity on the account page', () => {
  it('shows the sign-in just made with its time, address and browser, and hostile strings from events as text', async () => {
    const account = await register(running, { password: PASSWORD });
    const failed = await api('/api/auth/login', {
      json: { email: account.email, password: 'not the password' },
      headers: { 'user-agent': HOSTILE_AGENT },
    });
    expect(failed.status).toBe(401);
    expect((await api('/api/auth/api-keys', { token: account.token, json: { name: HOSTILE_NAME } })).status).toBe(201);

    const tab = await signInThroughPages(() => browser.open(), url(''), account.email, PASSWORD);
    const { page } = tab;
    // Any script the strings managed to run would open a dialog: watch for one from a fresh load on.
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await page.reload();
    const section = page.locator('#activity');
    await section.locator('li').nth(4).waitFor();
    expect(await headlines(page)).toEqual([
      'Signed in with a password',
      `API key created: ${HOSTILE_NAME}`,
      'Failed sign-in (wrong password)',
      ...REGISTERED,
    ]);

    // The sign-in's row gives the event's time as this browser writes it, its address, and the browser.
    const [signIn, , failure] = await eventsOf(account.token);
    expect(signIn!.action).toBe('auth.signed_in');
    const when = await page.evaluate((iso) => new Date(iso).toLocaleString(), signIn!.occurredAt);
    const rows = section.locator('li');
    expect(await rows.nth(0).locator('.muted').textContent()).toBe(`${when} · ${signIn!.ip} · Chrome on Linux`);

    // The failed sign-in came from another client: its user agent is shown as it was sent, as text.
    expect(failure).toMatchObject({ action: 'auth.sign_in_failed', userAgent: HOSTILE_AGENT });
    expect(await rows.nth(2).locator('.muted').textContent()).toContain(` · ${HOSTILE_AGENT}`);
    expect(await section.locator('img').count()).toBe(0);
    expect(await section.innerHTML()).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(await section.getByRole('button', { name: 'Show older activity' }).isHidden()).toBe(true);
    await screenshot(page, 'activity-account');
    expect(dialogs).toEqual([]);
    expect(tab.errors).toEqual([]);
  });

  it('adds a password change made on the page at the top of the list, without a reload', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signInThroughPages(() => browser.open(), url(''), account.email, PASSWORD);
    const { page } = tab;
    await page.locator('#activity-list li').nth(2).waitFor();
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));

    const form = page.locator('#password-form');
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('New password').fill('a brand new passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    // The change answers with a new session's token, so the list gains that sign-in too.
    await page.locator('#activity-list li').nth(4).waitFor();
    expect(await headlines(page)).toEqual(['Signed in with a password', 'Password changed', 'Signed in with a password', ...REGISTERED]);
    const token = (await page.evaluate(() => sessionStorage.getItem('accessToken')))!;
    expect((await eventsOf(token)).map((event) => event.action)).toEqual([
      'auth.signed_in',
      'password.changed',
      'auth.signed_in',
      'auth.signed_in',
      'auth.registered',
    ]);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(tab.errors).toEqual([]);
  });

  it('shows ten events, then older ones ten at a time until the first, none missed or repeated', async () => {
    const account = await register(running, { password: PASSWORD });
    const expected = [...REGISTERED];
    for (let n = 1; n <= 12; n++) {
      const created = await api('/api/auth/api-keys', { token: account.token, json: { name: `Key ${n}` } });
      expect(created.status).toBe(201);
      expect((await api(`/api/auth/api-keys/${created.body.apiKey.id}`, { method: 'DELETE', token: account.token })).status).toBe(204);
      expected.unshift(`API key created: Key ${n}`);
      expected.unshift('API key deleted');
    }
    expected.unshift('Signed in with a password');

    const tab = await signInThroughPages(() => browser.open(), url(''), account.email, PASSWORD);
    const { page } = tab;
    const more = page.getByRole('button', { name: 'Show older activity' });
    await more.waitFor();
    expect(await headlines(page)).toEqual(expected.slice(0, 10));

    // 27 events: two more pages, the last one short, after which the button goes away.
    await more.click();
    await page.locator('#activity-list li').nth(19).waitFor();
    expect(await headlines(page)).toEqual(expected.slice(0, 20));
    expect(await more.isVisible()).toBe(true);
    await more.click();
    await more.waitFor({ state: 'hidden' });
    expect(await headlines(page)).toEqual(expected);
    expect((await eventsOf(account.token)).map((event) => event.action)).toHaveLength(27);
    await screenshot(page, 'activity-all-pages');
    expect(tab.errors).toEqual([]);
  });
});
