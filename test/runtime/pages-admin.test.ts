/**
 * Issue 33 in the built-in pages, in a real browser (Debian's Chromium) against the full fixture:
 * the /admin page bans a user, whose open account page is signed out at its next request; acting as
 * a user shows a banner on every page, and its Stop button returns the tab to the admin; the
 * account page downloads the user's data and deletes the account once the address is typed.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { register, type Account } from '../helpers/accounts.js';
import { runAdminCommand } from '../helpers/admin-command.js';
import { call } from '../helpers/app-process.js';
import { onAccountPage as showsAccountPage, screenshot, signInThroughPages, useBrowser, type Tab } from '../helpers/browser.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { useRunningApp } from '../helpers/running-app.js';

const PASSWORD = 'correct horse battery staple';

let fixture: PreparedFixture;
const browser = useBrowser();
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'pages-admin'), appUrlIsSelf: true });
const url = (path = '/') => `${running.env().APP_URL}${path}`;
const tokenOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('accessToken'));
const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);

const signIn = (email: string): Promise<Tab> => signInThroughPages(() => browser.open(), url(''), email, PASSWORD);
const onAccountPage = (page: Page, email: string) => showsAccountPage(page, url(''), email);

async function createAdmin(): Promise<Account> {
  const admin = await register(running, { password: PASSWORD });
  await runAdminCommand(fixture, running.databaseUrl, 'grant', admin.email);
  return admin;
}

/** The admin's tab on /admin, with `target` found and chosen. */
async function manage(admin: Tab, target: Account): Promise<void> {
  await admin.page.goto(url('/admin'));
  await admin.page.getByLabel(/Email or name/).fill(target.email);
  await admin.page.getByRole('button', { name: 'Search' }).click();
  await admin.page.getByRole('button', { name: `Manage ${target.email}` }).click();
  await admin.page.locator('#user-title', { hasText: target.email }).waitFor();
}

describe('the /admin page', () => {
  it("bans a user: their open account page is signed out at its next request, and signing in again says they are banned", async () => {
    const adminAccount = await createAdmin();
    const target = await register(running, { password: PASSWORD });
    const admin = await signIn(adminAccount.email);
    const victim = await signIn(target.email);

    await manage(admin, target);
    await admin.page.getByLabel(/Reason/).first().fill('sent spam to every member');
    await admin.page.getByLabel(/Hours/).fill('24');
    await admin.page.getByRole('button', { name: 'Ban', exact: true }).click();
    await admin.page.locator('#user-notice', { hasText: 'is banned' }).waitFor();
    await admin.page.locator('#user [data-field="status"]', { hasText: /Banned until .*: sent spam/ }).waitFor();
    await screenshot(admin.page, 'admin-ban');

    // The victim's tab still shows the account; its next request is refused and the page signs it out.
    await victim.page.reload();
    await victim.page.waitForURL(url('/'));
    expect(await tokenOf(victim.page)).toBeNull();
    const form = victim.page.locator('#sign-in-form');
    await form.getByLabel('Email').fill(target.email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await form.locator('[role="alert"]', { hasText: /This account is banned until/ }).waitFor();
    expect(await form.locator('[role="alert"]').textContent()).not.toContain('spam');

    // Lifting the ban from the page lets them in again.
    await admin.page.getByRole('button', { name: 'Lift the ban' }).click();
    await admin.page.locator('#user [data-field="status"]', { hasText: 'Active' }).waitFor();
    await form.getByRole('button', { name: 'Sign in' }).click();
    await onAccountPage(victim.page, target.email);
    expect(admin.errors).toEqual([]);
  }, 90_000);

  it('ends every session of a user', async () => {
    const adminAccount = await createAdmin();
    const target = await register(running, { password: PASSWORD });
    const admin = await signIn(adminAccount.email);
    const victim = await signIn(target.email);
    await manage(admin, target);
    await admin.page.getByRole('button', { name: 'End every session' }).click();
    await admin.page.locator('#user [data-field="sessions"]', { hasText: '0' }).waitFor();
    await victim.page.reload();
    await victim.page.waitForURL(url('/'));
    expect(admin.errors).toEqual([]);
  }, 60_000);

  it('acts as a user with a banner on every page; Stop ends the impersonation and returns to the admin', async () => {
    const adminAccount = await createAdmin();
    const target = await register(running, { password: PASSWORD, name: 'Grace Target' });
    const admin = await signIn(adminAccount.email);
    await manage(admin, target);
    const adminToken = await tokenOf(admin.page);
    await admin.page.getByLabel('Reason', { exact: true }).fill('ticket 12: cannot see invoices');
    await admin.page.getByRole('button', { name: 'Act as this user' }).click();

    await onAccountPage(admin.page, target.email);
    const banner = admin.page.locator('#impersonation-banner');
    await banner.getByText(`You are acting as ${target.email} (as admin ${adminAccount.email}).`).waitFor();
    const impersonation = (await tokenOf(admin.page))!;
    expect(impersonation).not.toBe(adminToken);
    await admin.page.locator('#sessions li', { hasText: 'impersonation' }).first().waitFor();
    await screenshot(admin.page, 'admin-impersonation');
    // What the user could do but the admin acting as them cannot: the page says why.
    await admin.page.getByRole('button', { name: 'Download your data' }).click();
    await admin.page.locator('#account-data [role="alert"]', { hasText: 'impersonation session cannot' }).waitFor();
    // The banner is on the other pages too.
    await admin.page.goto(url('/organizations'));
    await banner.getByRole('button', { name: 'Stop acting as this user' }).click();

    await admin.page.waitForURL(url('/admin'));
    await expect.poll(() => admin.page.locator('#impersonation-banner').count()).toBe(0);
    const back = (await tokenOf(admin.page))!;
    expect((await api('/api/auth/me', { token: back })).body.user.email).toBe(adminAccount.email);
    expect((await api('/api/auth/me', { token: impersonation })).status).toBe(401);
    const sessions = await api('/api/auth/sessions', { token: target.token });
    expect(sessions.body.sessions.map((session: { method: string }) => session.method)).toEqual(['password']);
    // The API refused the export on purpose; nothing else went wrong.
    expect(admin.errors.filter((error) => !/status of 403/.test(error))).toEqual([]);
  }, 90_000);

  it('tells a user who is not an admin that the page is not for them', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signIn(account.email);
    await tab.page.goto(url('/admin'));
    await tab.page.locator('#page-alert', { hasText: 'This page is for the admins of this app.' }).waitFor();
    expect(await tab.page.locator('#users li').count()).toBe(0);
  }, 60_000);
});

describe('the account page: your data', () => {
  it('downloads everything the app keeps about you, then deletes the account once its address is typed', async () => {
    const account = await register(running, { password: PASSWORD, name: 'Ada Leaving' });
    const tab = await signIn(account.email);
    const [download] = await Promise.all([tab.page.waitForEvent('download'), tab.page.getByRole('button', { name: 'Download your data' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^account-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(exported.user).toMatchObject({ id: account.userId, email: account.email, name: 'Ada Leaving' });
    expect(JSON.stringify(exported)).not.toContain(PASSWORD);

    const form = tab.page.locator('#delete-account');
    await form.getByLabel('Type your email address to confirm').fill('someone-else@example.com');
    await form.getByRole('button', { name: 'Delete my account' }).click();
    await form.locator('[role="alert"]', { hasText: 'Type the email address of this account' }).waitFor();
    await form.getByLabel('Type your email address to confirm').fill(account.email);
    await form.getByRole('button', { name: 'Delete my account' }).click();
    await tab.page.waitForURL(url('/'));
    expect(await tokenOf(tab.page)).toBeNull();
    expect((await api('/api/auth/login', { json: { email: account.email, password: PASSWORD } })).status).toBe(401);
    expect(tab.errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
  }, 60_000);
});
