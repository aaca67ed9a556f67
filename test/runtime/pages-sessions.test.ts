/**
 * Sessions in the built-in pages (issue 25), in a real browser: the full fixture with access tokens
 * of 60 seconds. A signed-in browser stays signed in across reloads, new tabs and the expiry of its
 * access token; no script can read the refresh token; a session ended from another browser's
 * account page signs the first browser out at its next request.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { useBrowser, type Tab } from '../helpers/browser.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { useRunningApp } from '../helpers/running-app.js';

const PASSWORD = 'correct horse battery staple';

let fixture: PreparedFixture;
const browser = useBrowser();
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({
  fixture: () => fixture,
  databaseUrl: () => copyOfDevDatabase(fixture, 'pages-sessions'),
  env: () => ({ JWT_EXPIRES_IN: '60s' }),
  appUrlIsSelf: true,
});
const url = (path = '/') => `${running.env().APP_URL}${path}`;
const tokenOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('accessToken'));

async function signIn(email: string): Promise<Tab> {
  const tab = await browser.open();
  tab.page.setDefaultTimeout(15_000);
  await tab.page.goto(url('/'));
  const form = tab.page.locator('#sign-in-form');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(PASSWORD);
  await form.getByRole('button', { name: 'Sign in' }).click();
  await onAccountPage(tab.page, email);
  return tab;
}

async function onAccountPage(page: Page, email: string): Promise<void> {
  await page.waitForURL(url('/account'));
  await page.locator('#profile [data-field="email"]', { hasText: email }).waitFor();
}

describe('sessions in the pages', () => {
  it('keeps the refresh token in an HttpOnly cookie that no script reads, and never in storage', async () => {
    const account = await register(running, { password: PASSWORD });
    const { page, errors } = await signIn(account.email);
    const cookies = await page.context().cookies();
    const refresh = cookies.find((cookie) => cookie.name === 'gatekit_refresh')!;
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('gatekit_refresh');
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(refresh.value);
    expect(errors).toEqual([]);
  });

  it('stays signed in across a reload, in a new tab, and past the access token\'s expiry', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signIn(account.email);
    const first = await tokenOf(tab.page);
    await tab.page.reload();
    await onAccountPage(tab.page, account.email);

    // A new tab of the same browser has no access token of its own: the cookie gets it one.
    const second = await tab.page.context().newPage();
    await second.goto(url('/account'));
    await onAccountPage(second, account.email);
    expect(await tokenOf(second)).not.toBe(first);

    await new Promise((resolve) => setTimeout(resolve, 62_000));
    expect((await call(running.app.url, '/api/auth/me', { token: first! })).status).toBe(401);
    await tab.page.reload();
    await onAccountPage(tab.page, account.email);
    expect(await tokenOf(tab.page)).not.toBe(first);
    expect(tab.errors).toEqual([]);
  }, 120_000);

  it('lists the sessions on the account page; ending one there signs that browser out at its next request', async () => {
    const account = await register(running, { password: PASSWORD });
    const laptop = await signIn(account.email);
    const phone = await signIn(account.email);
    const list = phone.page.locator('#sessions li');
    await expect.poll(() => list.count()).toBe(3); // the registration's session, the laptop and this one
    expect(await phone.page.locator('#sessions li', { hasText: 'This device' }).count()).toBe(1);

    await phone.page.getByRole('button', { name: 'Sign out every other device' }).click();
    await expect.poll(() => list.count()).toBe(1);

    // The laptop's next request is refused, and its refresh cookie was ended with its session.
    await laptop.page.reload();
    await laptop.page.waitForURL(url('/'));
    expect(await tokenOf(laptop.page)).toBeNull();
    expect((await call(running.app.url, '/api/auth/me', { token: (await tokenOf(phone.page))! })).status).toBe(200);
  }, 60_000);
});
