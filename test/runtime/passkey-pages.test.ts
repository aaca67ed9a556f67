/**
 * Passkeys in the built-in pages, in Chromium with a CDP virtual authenticator (CTAP2, internal,
 * resident keys, user verification): add a passkey on the account page, sign out, sign in with the
 * browser's passkey autofill and with the passkey button, use the passkey as the second factor of a password sign-in, and remove it. The
 * screenshots go to docs/images/passkey-*.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { useBrowser } from '../helpers/browser.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { ROOT } from '../helpers/run-cli.js';
import { useRunningApp } from '../helpers/running-app.js';
import { nextCode, type TotpDevice } from '../helpers/totp-codes.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 1_200_000 });

const PASSWORD = 'correct horse battery staple';

let fixture: PreparedFixture;
const browser = useBrowser();
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'passkey-pages'), appUrlIsSelf: true });
const url = (pathname = '/') => `${running.env().APP_URL}${pathname}`;
const api = (pathname: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, pathname, init);
const tokenOf = async (page: Page) => (await page.evaluate(() => sessionStorage.getItem('accessToken'))) ?? undefined;

async function docsScreenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'docs/images');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** The current session's sign-in method, as GET /api/auth/sessions reports it. */
async function sessionMethod(page: Page): Promise<string> {
  const { body } = await api('/api/auth/sessions', { token: await tokenOf(page) });
  return body.sessions.find((session: { current: boolean }) => session.current).method;
}

async function onAccountPage(page: Page, email: string): Promise<void> {
  await page.waitForURL(url('/account'));
  await page.locator('#profile [data-field="email"]', { hasText: email }).waitFor();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL(url('/'));
}

describe('passkeys in the pages', () => {
  it('adds a passkey on the account page, signs in with it by autofill and by the button, uses it as the second factor, and removes it', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    const tab = await browser.open();
    const { page } = tab;
    page.setDefaultTimeout(15_000);
    const cdp = await tab.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });

    // Sign in with the password and add a passkey.
    await page.goto(url('/'));
    const form = page.locator('#sign-in-form');
    await form.getByLabel('Email').fill(account.email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await onAccountPage(page, account.email);
    await page.locator('#passkey-name').fill('This laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Added This laptop.').waitFor();
    await page.locator('#passkey-list li', { hasText: 'This laptop' }).waitFor();
    await docsScreenshot(page, 'passkey-account');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    const listed = (await api('/api/auth/passkeys', { token: await tokenOf(page) })).body.passkeys;
    expect(listed).toEqual([expect.objectContaining({ name: 'This laptop' })]);

    // Sign out: on the sign-in page the browser's passkey autofill (conditional mediation) offers the
    // passkey, and Chromium's virtual authenticator picks it at once: signed in with no click.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(url('/'), { waitUntil: 'commit' });
    await onAccountPage(page, account.email);
    expect(await sessionMethod(page)).toBe('passkey');

    // From here on the browser has no autofill (as many do not): the button is the way in.
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
    await signOut(page);
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await button.waitFor();
    await docsScreenshot(page, 'passkey-sign-in');
    await button.click();
    await onAccountPage(page, account.email);
    expect(await sessionMethod(page)).toBe('passkey');

    // Turn two-factor on, then sign in with the password: the passkey answers the second step.
    const token = await tokenOf(page);
    const setup = await api('/api/auth/2fa/setup', { method: 'POST', token });
    const device: TotpDevice = { secret: setup.body.secret, lastStep: -1 };
    expect((await api('/api/auth/2fa/enable', { token, json: { code: await nextCode(device) } })).status).toBe(200);
    await signOut(page);
    await form.getByLabel('Email').fill(account.email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/two-factor'));
    const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
    await usePasskey.waitFor();
    await docsScreenshot(page, 'passkey-two-factor');
    await usePasskey.click();
    await onAccountPage(page, account.email);
    expect(await sessionMethod(page)).toBe('password');

    // Remove it: the password remains, so it may go.
    await page.getByRole('button', { name: 'Remove This laptop' }).click();
    await page.getByText('Removed This laptop.').waitFor();
    await page.getByText('No passkey yet.').waitFor();
    await docsScreenshot(page, 'passkey-removed');
    expect((await api('/api/auth/passkeys', { token: await tokenOf(page) })).body.passkeys).toEqual([]);
    expect(tab.errors).toEqual([]);
    await tab.context.close();
  });
});
