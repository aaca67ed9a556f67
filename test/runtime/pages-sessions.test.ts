/**
 * Sessions in the built-in pages (issue 25), in a real browser: the full fixture with access tokens
 * of 60 seconds. A signed-in browser stays signed in across reloads, new tabs and the expiry of its
 * access token; no script can read the refresh token; a session ended from another browser's
 * account page signs the first browser out at its next request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { onAccountPage as showsAccountPage, signInThroughPages, useBrowser, type Tab } from '../helpers/browser.js';
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

const signIn = (email: string): Promise<Tab> => signInThroughPages(() => browser.open(), url(''), email, PASSWORD);
const onAccountPage = (page: Page, email: string) => showsAccountPage(page, url(''), email);

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

  it('ends one session from another browser\'s account page: that browser is signed out at its next request, the others stay', async () => {
    const account = await register(running, { password: PASSWORD });
    const laptop = await signIn(account.email);
    const phone = await signIn(account.email);
    const list = phone.page.locator('#sessions li');
    await expect.poll(() => list.count()).toBe(3);
    // The laptop is the other Chromium session (the registration's was made by the test, as "node").
    const laptopUserAgent = await laptop.page.evaluate(() => navigator.userAgent);
    const laptopItem = phone.page.locator('#sessions li', { hasText: laptopUserAgent.slice(0, 60) }).filter({ hasNotText: 'This device' });
    await expect.poll(() => laptopItem.count()).toBe(1);
    await laptopItem.getByRole('button', { name: /^Sign out / }).click();
    await expect.poll(() => list.count()).toBe(2);

    const laptopToken = (await tokenOf(laptop.page))!;
    expect((await call(running.app.url, '/api/auth/me', { token: laptopToken })).status).toBe(401);
    // Its next request (a reload asks for the user) fails, the refresh cookie cannot bring the
    // session back, and the page goes to sign-in.
    await laptop.page.reload();
    await laptop.page.waitForURL(url('/'));
    expect(await tokenOf(laptop.page)).toBeNull();
    await phone.page.reload();
    await onAccountPage(phone.page, account.email);
    expect((await call(running.app.url, '/api/auth/me', { token: account.token })).status).toBe(200);
    expect(laptop.errors.filter((error) => !/401/.test(error))).toEqual([]);
    expect(phone.errors).toEqual([]);
  }, 60_000);

  it('a cross-site form POST to /api/auth/refresh refreshes nothing: the signed-in browser keeps its refresh cookie, which still works', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signIn(account.email);
    const before = (await tab.context.cookies()).find((cookie) => cookie.name === 'gatekit_refresh')!.value;

    // Another site (127.0.0.1 is not localhost to a browser) posts forms to the app's refresh
    // route: a plain form and the text/plain trick that makes a body look like JSON.
    const target = url('/api/auth/refresh');
    const forms: Record<string, string> = {
      '/form': `<form method="post" action="${target}"><input name="refreshToken" value="x"></form>`,
      '/text': `<form method="post" enctype="text/plain" action="${target}"><input name='{"refreshToken":"' value='"}'></form>`,
    };
    const attacker: Server = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><body>${forms[req.url ?? ''] ?? ''}<script>document.forms[0].submit()</script></body>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const evil = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    try {
      for (const path of Object.keys(forms)) {
        const visit = await tab.newPage();
        const answer = visit.waitForResponse((response) => response.url() === target);
        await visit.goto(`${evil}${path}`);
        const response = await answer;
        expect(response.status(), path).not.toBe(200);
        expect(await response.headerValue('set-cookie'), path).toBeNull();
        await visit.close();
      }
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }

    const after = (await tab.context.cookies()).find((cookie) => cookie.name === 'gatekit_refresh')!.value;
    expect(after).toBe(before);
    // The owner's own refresh (same site, with the header) still works with that cookie.
    const refreshed = await tab.page.evaluate(async () => {
      const response = await fetch('/api/auth/refresh', { method: 'POST', headers: { 'refresh-token-transport': 'cookie' } });
      return { status: response.status, body: await response.json() };
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refreshToken).toBeUndefined();
    expect((await tab.context.cookies()).find((cookie) => cookie.name === 'gatekit_refresh')!.value).not.toBe(before);
  }, 60_000);
});
