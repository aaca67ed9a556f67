/**
 * API keys in the built-in pages (issue 32 item 9, CONTRACT B.14 rule 9), in Chromium against the
 * full fixture (api-keys and orgs, so org-api-keys too): the account page makes a key, shows it
 * once, copies it to the clipboard, and deletes it; the key works for /api/auth/me in between and
 * gets 401 after. An organization's page does the same for its owners (an admin is offered member
 * keys only, a member sees no keys). Making a key needs a recent sign-in: the page says so and
 * offers to sign in again. Screenshots go to test/tmp/screenshots/api-keys-*.png.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { register, type Account } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { screenshot, useBrowser, type Tab } from '../helpers/browser.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { tokenIssuedAgo } from '../helpers/old-token.js';
import { useRunningApp } from '../helpers/running-app.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 1_200_000 });

const PASSWORD = 'correct horse battery staple';
const KEY_PATTERN = (kind: 'user' | 'org') => new RegExp(`^gk_${kind}_[0-9A-Za-z]{49}$`);

let fixture: PreparedFixture;
const browser = useBrowser();
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({
  fixture: () => fixture,
  databaseUrl: () => copyOfDevDatabase(fixture, 'api-keys-pages'),
  appUrlIsSelf: true,
});
const url = (pathname = '/') => `${running.env().APP_URL}${pathname}`;
const api = (pathname: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, pathname, init);
/** The console error Chromium logs for an API answer the test provoked on purpose. */
const failedLoad = (status: number, pathname: string) =>
  expect.stringMatching(new RegExp(`status of ${status} .*\\(${url(pathname).replace(/[?.]/g, '\\$&')}\\)$`));

async function signInOnPage(page: Page, email: string): Promise<void> {
  const form = page.locator('#sign-in-form');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(PASSWORD);
  await form.getByRole('button', { name: 'Sign in' }).click();
}

/** A new browser, allowed to use the clipboard, signed in with the password and back on `pathname`. */
async function signedIn(account: Account, pathname = '/account'): Promise<Tab> {
  const tab = await browser.open();
  tab.page.setDefaultTimeout(15_000);
  await tab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url() });
  await tab.page.goto(url('/'));
  await signInOnPage(tab.page, account.email);
  await tab.page.waitForURL(url('/account'));
  if (pathname !== '/account') await tab.page.goto(url(pathname));
  return tab;
}

/** Clicks "Copy the key" and returns what the clipboard then holds, checking it is what the page shows. */
async function copyKey(page: Page, section: string): Promise<string> {
  const panel = page.locator(`${section} [data-new-key]`);
  await panel.getByRole('button', { name: 'Copy the key' }).click();
  await panel.getByText('Copied to the clipboard.').waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(await panel.locator('input').inputValue()).toBe(copied);
  return copied;
}

async function organizationWith(owner: Account, name: string): Promise<string> {
  const created = await api('/api/organizations', { token: owner.token, json: { name } });
  expect(created.status).toBe(201);
  return created.body.organization.id;
}

/** Invites `account` to the organization with `role` and accepts for them. */
async function join(organizationId: string, owner: Account, account: Account, role: 'admin' | 'member'): Promise<void> {
  const invited = await api(`/api/organizations/${organizationId}/invite`, { token: owner.token, json: { email: account.email, role } });
  expect(invited.status).toBe(201);
  const token = invited.body.inviteUrl.split('/invite/')[1];
  expect((await api(`/api/organizations/invite/${token}/accept`, { method: 'POST', token: account.token })).status).toBe(200);
}

describe('API keys on the account page', () => {
  it('makes a key, shows it once with a copy button, and deletes it: the copied key reads /api/auth/me until then, 401 after', async () => {
    const account = await register(running, { password: PASSWORD, name: 'Kay Keymaker' });
    const tab = await signedIn(account);
    const { page } = tab;
    const section = page.locator('#api-keys');
    await section.getByText('No API keys yet.').waitFor();

    await section.getByLabel('Name').fill('Deploy script');
    await section.getByLabel('Expires').selectOption('30');
    await section.getByRole('button', { name: 'Create key' }).click();
    await section.getByText('you will not see it again').waitFor();
    const key = await copyKey(page, '#api-keys');
    expect(key).toMatch(KEY_PATTERN('user'));
    const item = section.locator('#api-key-list li', { hasText: 'Deploy script' });
    await item.waitFor();
    expect(await item.textContent()).toContain(`${key.slice(0, 12)}…`);
    expect(await item.textContent()).toContain('profile:read, orgs:read');
    expect(await item.textContent()).toContain('never used');
    await screenshot(page, 'api-keys-account');

    const me = await api('/api/auth/me', { token: key });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: account.userId, email: account.email });
    const { body } = await api('/api/auth/api-keys', { token: account.token });
    expect(body.apiKeys).toEqual([
      expect.objectContaining({ name: 'Deploy script', scopes: ['profile:read', 'orgs:read'], expiresAt: expect.any(String) }),
    ]);

    // The key lives only in the panel: no storage holds it, and once hidden no page shows it again.
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(key);
    await section.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await section.locator('[data-new-key]').isHidden()).toBe(true);
    expect(await page.content()).not.toContain(key);
    await page.reload();
    await item.getByText(/last used/).waitFor(); // the /me call above was its first use
    expect(await page.content()).not.toContain(key);

    await section.getByRole('button', { name: 'Delete Deploy script' }).click();
    await section.getByText('Deleted Deploy script.').waitFor();
    await section.getByText('No API keys yet.').waitFor();
    const refused = await api('/api/auth/me', { token: key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHENTICATED');
    expect(tab.errors).toEqual([]);
  });

  it('takes the scopes ticked, and refuses a key with none before asking the API', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signedIn(account);
    const section = tab.page.locator('#api-keys');
    await section.getByLabel('Name').fill('Org writer');
    await section.getByLabel(/profile:read/).uncheck();
    await section.getByLabel(/orgs:read/).uncheck();
    await section.getByRole('button', { name: 'Create key' }).click();
    await section.getByText('Choose at least one scope.').waitFor();
    await section.getByLabel(/orgs:write/).check();
    await section.getByLabel('Expires').selectOption('');
    await section.getByRole('button', { name: 'Create key' }).click();
    const key = await copyKey(tab.page, '#api-keys');
    await section.locator('#api-key-list li', { hasText: 'does not expire' }).waitFor();
    const me = await api('/api/auth/me', { token: key });
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await api('/api/auth/api-keys', { token: account.token })).body.apiKeys).toEqual([
      expect.objectContaining({ name: 'Org writer', scopes: ['orgs:write'], expiresAt: null }),
    ]);
    expect(tab.errors).toEqual([]);
  });

  it('says that making a key needs a recent sign-in, and makes it after signing in again', async () => {
    const account = await register(running, { password: PASSWORD });
    const old = await tokenIssuedAgo(running.databaseUrl, account.userId, 30);
    const tab = await browser.open();
    const { page } = tab;
    page.setDefaultTimeout(15_000);
    await page.goto(url('/'));
    await page.evaluate((token) => sessionStorage.setItem('accessToken', token), old);
    await page.goto(url('/account'));
    const section = page.locator('#api-keys');
    await section.getByText('No API keys yet.').waitFor();
    await section.getByLabel('Name').fill('Too late');
    await section.getByRole('button', { name: 'Create key' }).click();
    await section.getByText('This change needs a recent sign-in. Sign in again, then retry.').waitFor();
    await section.getByRole('button', { name: 'Sign in again' }).click();
    await page.waitForURL(url('/'));
    await signInOnPage(page, account.email);
    await page.waitForURL(url('/account'));
    await section.getByLabel('Name').fill('In time');
    await section.getByRole('button', { name: 'Create key' }).click();
    await section.getByText('you will not see it again').waitFor();
    expect(await section.locator('[data-new-key] input').inputValue()).toMatch(KEY_PATTERN('user'));
    await section.locator('#api-key-list li', { hasText: 'In time' }).waitFor();
    expect(tab.errors).toEqual([failedLoad(403, '/api/auth/api-keys')]);
  });
});

describe("API keys on an organization's page", () => {
  it('an owner makes an admin key that acts in the organization, copies it, and deletes it: 401 after', async () => {
    const owner = await register(running, { password: PASSWORD, name: 'Olivia Owner' });
    const organizationId = await organizationWith(owner, 'Keyed Rockets');
    const tab = await signedIn(owner, `/organizations?id=${organizationId}`);
    const { page } = tab;
    const section = page.locator('#organization-api-keys');
    await section.getByText('No API keys yet.').waitFor();

    await section.getByLabel('Name').fill('Billing sync');
    await section.getByLabel('Acts as').selectOption('admin');
    await section.getByLabel(/orgs:write/).check();
    await section.getByRole('button', { name: 'Create key' }).click();
    const key = await copyKey(page, '#organization-api-keys');
    expect(key).toMatch(KEY_PATTERN('org'));
    const item = section.locator('li', { hasText: 'Billing sync' });
    await item.waitFor();
    expect(await item.textContent()).toContain('orgs:read, orgs:write · acts as admin');
    expect(await item.textContent()).toContain('by Olivia Owner');
    await screenshot(page, 'api-keys-organization');

    // The key acts as an admin of this organization: it reads it, and invites someone.
    const read = await api(`/api/organizations/${organizationId}`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body.organization).toMatchObject({ id: organizationId, role: 'admin' });
    expect(
      (await api(`/api/organizations/${organizationId}/invite`, { token: key, json: { email: 'invited-by-key@example.com' } })).status,
    ).toBe(201);
    expect((await api('/api/auth/me', { token: key })).body.error.code).toBe('SESSION_REQUIRED');

    await section.getByRole('button', { name: 'Delete Billing sync' }).click();
    await section.getByText('Deleted Billing sync.').waitFor();
    await section.getByText('No API keys yet.').waitFor();
    const refused = await api(`/api/organizations/${organizationId}`, { token: key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHENTICATED');
    expect(tab.errors).toEqual([]);
  });

  it('offers an admin member keys only, and shows a member no keys', async () => {
    const owner = await register(running, { password: PASSWORD, name: 'Olivia Owner' });
    const admin = await register(running, { password: PASSWORD, name: 'Adam Admin' });
    const member = await register(running, { password: PASSWORD, name: 'Mia Member' });
    const organizationId = await organizationWith(owner, 'Layered Rockets');
    await join(organizationId, owner, admin, 'admin');
    await join(organizationId, owner, member, 'member');
    const ownerKey = await api(`/api/organizations/${organizationId}/api-keys`, {
      token: owner.token,
      json: { name: 'Owner made', role: 'admin' },
    });
    expect(ownerKey.status).toBe(201);

    const adminTab = await signedIn(admin, `/organizations?id=${organizationId}`);
    const section = adminTab.page.locator('#organization-api-keys');
    await section.locator('li', { hasText: 'Owner made' }).waitFor();
    expect(await section.locator('option[value="admin"]').isDisabled()).toBe(true);
    expect(await section.getByLabel('Acts as').inputValue()).toBe('member');
    await section.getByLabel('Name').fill('Admin made');
    await section.getByRole('button', { name: 'Create key' }).click();
    const key = await copyKey(adminTab.page, '#organization-api-keys');
    expect((await api(`/api/organizations/${organizationId}`, { token: key })).body.organization.role).toBe('member');
    expect(adminTab.errors).toEqual([]);

    const memberTab = await signedIn(member, `/organizations?id=${organizationId}`);
    await memberTab.page.locator('#organization-title', { hasText: 'Layered Rockets' }).waitFor();
    await memberTab.page.locator('#members tr').first().waitFor();
    expect(await memberTab.page.locator('#organization-api-keys').isHidden()).toBe(true);
    expect(memberTab.errors).toEqual([]);
  });
});
