/**
 * The built-in pages (issue 12) in a real browser: Debian's Chromium driven by playwright-core,
 * against the full fixture serving its own pages (APP_URL is the app), with the SMTP catcher and
 * the fake OAuth provider. Every flow clicks through the pages as a person would, then checks
 * what the page shows and what the API says afterwards, and that no page logged an error.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, uniqueEmail } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { screenshot, useBrowser, type Tab } from '../helpers/browser.js';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-oauth/index.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { tokenIssuedAgo } from '../helpers/old-token.js';
import { useRunningApp } from '../helpers/running-app.js';
import { nextCode, type TotpDevice } from '../helpers/totp-codes.js';

const PASSWORD = 'correct horse battery staple';

let fixture: PreparedFixture;
let fake: FakeProviders;
const browser = useBrowser();
beforeAll(async () => {
  fake = await startFakeProviders();
  fixture = await sharedFixture('full');
});
afterAll(async () => {
  await fake?.close();
});
const running = useRunningApp({
  fixture: () => fixture,
  databaseUrl: () => copyOfDevDatabase(fixture, 'pages'),
  env: () => ({ ...fake.env('github'), ...fake.env('apple') }),
  appUrlIsSelf: true,
});
/** A URL of the app as the browser sees it (APP_URL, http://localhost:<port>). */
const url = (path = '/') => `${running.env().APP_URL}${path}`;
const pathOf = (link: string) => `${new URL(link).pathname}${new URL(link).search}`;
const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);

/** A new browser (its own cookies and storage) at `path`. */
async function open(path: string, options?: Parameters<typeof browser.open>[0]): Promise<Tab> {
  const tab = await browser.open(options);
  tab.page.setDefaultTimeout(10_000);
  await tab.page.goto(url(path));
  return tab;
}

const tokenOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('accessToken'));
const userOf = async (page: Page) => (await api('/api/auth/me', { token: (await tokenOf(page)) ?? undefined })).body.user;
/** Waits until the page shows `text` (in a visible element) and returns that element's text. */
async function shows(page: Page, text: string | RegExp): Promise<string> {
  const element = page.getByText(text).first();
  await element.waitFor({ state: 'visible' });
  return (await element.textContent()) ?? '';
}
/** The console error Chromium logs for an API answer the test provoked on purpose. */
const failedLoad = (status: number, path: string) => expect.stringMatching(new RegExp(`status of ${status} .*\\(${url(path).replace(/[?.]/g, '\\$&')}\\)$`));

async function signInWithPassword(page: Page, email: string, password = PASSWORD): Promise<void> {
  const form = page.locator('#sign-in-form');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Sign in' }).click();
}

/** The page lands on /account showing this email. */
async function onAccountPage(page: Page, email: string): Promise<void> {
  await page.waitForURL(url('/account'));
  await page.locator('#profile [data-field="email"]', { hasText: email }).waitFor();
}

/** A new browser signed in with the password, on the account page. */
async function signedIn(email: string): Promise<Tab> {
  const tab = await open('/');
  await signInWithPassword(tab.page, email);
  await onAccountPage(tab.page, email);
  return tab;
}

async function mailedLink(email: string, since: number, path: string): Promise<string> {
  return linkFrom(await running.mail.waitForMail(email, { since }), url(path));
}

describe('sign-in page', () => {
  it('is served with the strict Content-Security-Policy and shows only the methods /api/auth/providers reports', async () => {
    const tab = await browser.open();
    const response = await tab.page.goto(url('/'));
    expect(response!.status()).toBe(200);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("script-src-attr 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(response!.headers()['cache-control']).toBe('no-cache');
    const { body: providers } = await api('/api/auth/providers');
    const configured = providers.oauth.filter((provider: { configured: boolean }) => provider.configured).map((provider: { name: string }) => `Continue with ${provider.name}`);
    expect(configured.sort()).toEqual(['Continue with Apple', 'Continue with GitHub']);
    await tab.page.locator('#oauth-buttons a').first().waitFor();
    expect((await tab.page.locator('#oauth-buttons a').allTextContents()).sort()).toEqual(configured);
    expect(await tab.page.locator('[data-method="password"]').isVisible()).toBe(true);
    expect(await tab.page.locator('[data-method="magic_link"]').isVisible()).toBe(true);
    await screenshot(tab.page, 'sign-in');
    expect(tab.errors).toEqual([]);
  });

  it('labels every control, and reads on a phone without sideways scrolling', async () => {
    const tab = await open('/', { viewport: { width: 390, height: 844 } });
    await tab.page.locator('#oauth-buttons a').first().waitFor();
    await tab.page.getByText('New here? Create an account').click();
    const unlabelled = await tab.page.$$eval('input, select', (controls) =>
      controls.filter((control) => (control as HTMLInputElement).labels?.length === 0).map((control) => control.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    expect(await tab.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(tab.page, 'sign-in-phone');
    expect(tab.errors).toEqual([]);
  });
});

describe('password', () => {
  it('registers, signs out, and signs in again with the keyboard alone', async () => {
    const email = uniqueEmail('pages-register');
    const tab = await open('/');
    const { page } = tab;
    await page.getByText('New here? Create an account').click();
    const form = page.locator('#register-form');
    await form.getByLabel('Name').fill('Ada Pages');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Create account' }).click();
    await onAccountPage(page, email);
    expect(await page.locator('#profile [data-field="name"]').textContent()).toBe('Ada Pages');
    expect(page.url()).not.toContain((await tokenOf(page))!);
    const registered = await userOf(page);
    expect(registered).toMatchObject({ email, name: 'Ada Pages', emailVerified: false });

    const oldToken = (await tokenOf(page))!;
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(url('/'));
    expect(await tokenOf(page)).toBeNull();
    expect((await api('/api/auth/me', { token: oldToken })).status).toBe(401);

    await page.locator('#sign-in-email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await onAccountPage(page, email);
    expect((await userOf(page)).id).toBe(registered.id);
    expect(tab.errors).toEqual([]);
  });

  it('shows a wrong password as the API says it', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await open('/');
    await signInWithPassword(tab.page, account.email, 'not the password at all');
    expect(await shows(tab.page, 'Email or password is incorrect.')).toBeTruthy();
    expect(await tokenOf(tab.page)).toBeNull();
    expect(tab.errors).toEqual([failedLoad(401, '/api/auth/login')]);
  });

  it('changes the password on the account page, and signs out everywhere', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signedIn(account.email);
    const form = tab.page.locator('#password-form');
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('New password').fill('a brand new passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await shows(tab.page, 'Password changed. You were signed out everywhere else.');
    expect((await api('/api/auth/me', { token: account.token })).status).toBe(401);
    expect((await api('/api/auth/login', { json: { email: account.email, password: 'a brand new passphrase' } })).status).toBe(200);
    const current = (await tokenOf(tab.page))!;
    expect((await api('/api/auth/me', { token: current })).status).toBe(200);

    await tab.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await tab.page.waitForURL(url('/'));
    expect((await api('/api/auth/me', { token: current })).status).toBe(401);
    expect(tab.errors).toEqual([]);
  });

  it('resets a forgotten password from the mailed link', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await open('/');
    await tab.page.getByRole('link', { name: 'Forgot your password?' }).click();
    await tab.page.waitForURL(url('/reset-password'));
    const since = running.mail.messages.length;
    await tab.page.getByLabel('Email').fill(account.email);
    await tab.page.getByRole('button', { name: 'Email me a reset link' }).click();
    await shows(tab.page, `If ${account.email} has an account, a reset link is on its way.`);

    const link = await mailedLink(account.email, since, '/reset-password?token=');
    await tab.page.goto(link);
    expect(tab.page.url()).toBe(url('/reset-password'));
    await tab.page.getByLabel('New password').fill('reset to something new');
    await tab.page.getByRole('button', { name: 'Set the new password and sign in' }).click();
    await onAccountPage(tab.page, account.email);
    // The reset proved the mailbox: the address is verified, and every earlier token is revoked.
    expect(await userOf(tab.page)).toMatchObject({ id: account.userId, emailVerified: true });
    expect((await api('/api/auth/me', { token: account.token })).status).toBe(401);
    expect((await api('/api/auth/login', { json: { email: account.email, password: PASSWORD } })).status).toBe(401);
    expect((await api('/api/auth/login', { json: { email: account.email, password: 'reset to something new' } })).status).toBe(200);
    expect(tab.errors).toEqual([]);
  });

  /** Signs in with the password, asks for the verification mail, and returns the tab and the mailed link. */
  async function verificationLink(email: string): Promise<{ tab: Tab; link: string }> {
    const tab = await signedIn(email);
    await shows(tab.page, 'Not verified yet');
    const since = running.mail.messages.length;
    await tab.page.getByRole('button', { name: 'Send the verification email' }).click();
    await shows(tab.page, /^Sent\. Open the link in the mail/);
    return { tab, link: await mailedLink(email, since, '/verify-email?token=') };
  }

  it('verifies the email address from the mailed link in a new tab of the signed-in browser (its refresh cookie signs it in)', async () => {
    const account = await register(running, { password: PASSWORD });
    const { tab, link } = await verificationLink(account.email);
    const mailTab = await tab.newPage();
    await mailTab.goto(link);
    expect(await shows(mailTab, `${account.email} is verified. Thank you.`)).toBeTruthy();
    expect((await userOf(mailTab)).emailVerified).toBe(true);
    expect(tab.errors).toEqual([]);
  });

  it('verifies the email address from the mailed link in another browser, signing in first', async () => {
    const account = await register(running, { password: PASSWORD });
    const { link } = await verificationLink(account.email);
    const elsewhere = await browser.open();
    const mailTab = elsewhere.page;
    mailTab.setDefaultTimeout(10_000);
    await mailTab.goto(link);
    await mailTab.waitForURL(url('/'));
    await signInWithPassword(mailTab, account.email);
    await mailTab.waitForURL(url('/verify-email'));
    expect(await shows(mailTab, `${account.email} is verified. Thank you.`)).toBeTruthy();
    expect((await userOf(mailTab)).emailVerified).toBe(true);
    expect(elsewhere.errors).toEqual([]);
  });
});

describe('magic link', () => {
  it('asks for a link, and the mailed link signs in once Continue is clicked, by posting the token', async () => {
    const email = uniqueEmail('pages-magic');
    const tab = await open('/');
    const since = running.mail.messages.length;
    const form = tab.page.locator('#magic-link-form');
    await form.getByLabel('Email').fill(email);
    await form.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await shows(tab.page, `Check your inbox: if ${email} may sign in here, a link is on its way.`);

    const link = await mailedLink(email, since, '/magic-link?token=');
    const token = new URL(link).searchParams.get('token')!;
    // Every call of the verify route the browser makes, from the moment the mailed link opens.
    const fromMail = await browser.open();
    const verifies: { method: string; url: string; body: string | null }[] = [];
    fromMail.context.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/auth/magic-link/verify') verifies.push({ method: request.method(), url: request.url(), body: request.postData() });
    });
    const mailTab = fromMail.page;
    mailTab.setDefaultTimeout(10_000);
    await mailTab.goto(url(pathOf(link)));
    expect(mailTab.url()).toBe(url('/magic-link'));
    const proceed = mailTab.getByRole('button', { name: 'Continue' });
    await proceed.waitFor();
    await mailTab.waitForLoadState('networkidle');
    // Opening the page uses nothing up: only the click does (a mail scanner does not click).
    expect(verifies).toEqual([]);
    await proceed.click();
    await onAccountPage(mailTab, email);
    expect(verifies).toEqual([{ method: 'POST', url: url('/api/auth/magic-link/verify'), body: JSON.stringify({ token }) }]);
    expect(await userOf(mailTab)).toMatchObject({ email, emailVerified: true });
    await mailTab.locator('#profile [data-field="emailVerified"]', { hasText: /^Verified$/ }).waitFor();

    // The link works once.
    await mailTab.goto(link);
    await mailTab.getByRole('button', { name: 'Continue' }).click();
    expect(await shows(mailTab, /invalid|expired|used/i)).toBeTruthy();
    expect(verifies.map((request) => request.method)).toEqual(['POST', 'POST']);
    expect(tab.errors).toEqual([]);
    expect(fromMail.errors).toEqual([failedLoad(401, '/api/auth/magic-link/verify')]);
  });
});

describe('two-factor authentication', () => {
  it('is set up from the QR page by reading the key, then asked for at sign-in; a recovery code works once', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    const tab = await signedIn(account.email);
    const { page } = tab;
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.locator('#two-factor-secret').filter({ hasText: /\w/ }).waitFor();
    expect(await page.getByRole('img', { name: 'QR code for your authenticator app' }).getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await screenshot(page, 'account');
    const device: TotpDevice = { secret: (await page.locator('#two-factor-secret').textContent())!, lastStep: -1 };
    await page.getByLabel('Code from the app').first().fill(await nextCode(device));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await shows(page, 'Save these recovery codes.');
    const recoveryCodes = await page.locator('#recovery-codes li').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    expect((await userOf(page)).twoFactorEnabled).toBe(true);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(url('/'));
    await signInWithPassword(page, account.email);
    await page.waitForURL(url('/two-factor'));
    expect(await tokenOf(page)).toBeNull();
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(device));
    await page.getByRole('button', { name: 'Verify' }).click();
    await onAccountPage(page, account.email);
    expect((await userOf(page)).twoFactorEnabled).toBe(true);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(url('/'));
    await signInWithPassword(page, account.email);
    await page.waitForURL(url('/two-factor'));
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await onAccountPage(page, account.email);
    expect(tab.errors).toEqual([]);
  });

  it('says in words that a security change needs a recent sign-in, and offers to sign in again', async () => {
    const account = await register(running, { password: PASSWORD, verified: true });
    const old = await tokenIssuedAgo(running.databaseUrl, account.userId, 30);
    const tab = await open('/');
    await tab.page.evaluate((token) => sessionStorage.setItem('accessToken', token), old);
    await tab.page.goto(url('/account'));
    await tab.page.locator('#profile [data-field="email"]', { hasText: account.email }).waitFor();
    await tab.page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await shows(tab.page, 'This change needs a recent sign-in. Sign in again, then retry.');
    await tab.page.getByRole('button', { name: 'Sign in again' }).click();
    await tab.page.waitForURL(url('/'));
    await signInWithPassword(tab.page, account.email);
    await onAccountPage(tab.page, account.email);
    await tab.page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await tab.page.locator('#two-factor-secret').filter({ hasText: /\w/ }).waitFor();
    expect(tab.errors).toEqual([failedLoad(403, '/api/auth/2fa/setup')]);
  });
});

describe('OAuth through the fake provider', () => {
  let counter = 0;
  const person = (email = uniqueEmail('pages-oauth'), emailVerified = true) => ({ id: `${Date.now()}${++counter}`, email, emailVerified, name: `OAuth Person ${counter}` });

  /** Clicks "Continue with <name>" as a new person at the fake, and checks the account and identity it lands on. */
  async function signsInWith(provider: 'github' | 'apple', name: string): Promise<void> {
    const user = person();
    fake.nextUser(provider, user);
    const tab = await open('/');
    await tab.page.getByRole('link', { name: `Continue with ${name}` }).click();
    await onAccountPage(tab.page, user.email);
    expect(await userOf(tab.page)).toMatchObject({ email: user.email, emailVerified: true });
    const identities = await api('/api/auth/identities', { token: (await tokenOf(tab.page))! });
    expect(identities.body.identities).toEqual([expect.objectContaining({ provider, email: user.email })]);
    await tab.page.locator('#identities li', { hasText: name }).waitFor();
    expect(tab.errors).toEqual([]);
  }

  it('signs in with GitHub: the provider, then /auth/callback exchanges the code', async () => {
    await signsInWith('github', 'GitHub');
  });

  it("signs in with Apple, whose callback the browser posts cross-site from the provider's page", async () => {
    await signsInWith('apple', 'Apple');
  });

  it('says in words that an account exists (?error=account_exists), and links nothing', async () => {
    const account = await register(running, { password: PASSWORD });
    fake.nextUser('github', person(account.email, false));
    const tab = await open('/');
    await tab.page.getByRole('link', { name: 'Continue with GitHub' }).click();
    await tab.page.waitForURL(url('/auth/callback'));
    expect(await shows(tab.page, /^An account with this email address already exists/)).toContain('link this provider from your account page');
    expect(await tab.page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign-in failed');
    expect(await tokenOf(tab.page)).toBeNull();
    const identities = await api('/api/auth/identities', { token: account.token });
    expect(identities.body.identities).toEqual([]);
    expect(tab.errors).toEqual([]);
  });

  it('links GitHub from the account page, and unlinks it', async () => {
    const account = await register(running, { password: PASSWORD });
    const tab = await signedIn(account.email);
    const github = person(uniqueEmail('pages-link'));
    fake.nextUser('github', github);
    await tab.page.getByRole('button', { name: 'Link GitHub' }).click();
    await onAccountPage(tab.page, account.email);
    await tab.page.locator('#identities li', { hasText: `GitHub · ${github.email}` }).waitFor();
    expect((await userOf(tab.page)).id).toBe(account.userId);
    const linked = await api('/api/auth/identities', { token: (await tokenOf(tab.page))! });
    expect(linked.body.identities).toEqual([expect.objectContaining({ provider: 'github', email: github.email })]);

    await tab.page.getByRole('button', { name: 'Unlink GitHub' }).click();
    await tab.page.getByRole('button', { name: 'Link GitHub' }).waitFor();
    expect(await shows(tab.page, 'No provider is linked yet.')).toBeTruthy();
    const unlinked = await api('/api/auth/identities', { token: (await tokenOf(tab.page))! });
    expect(unlinked.body.identities).toEqual([]);
    expect(tab.errors).toEqual([]);
  });
  it('keeps the account page within a 375 px phone screen once an identity with a long address is listed', async () => {
    // A dotted address has no hyphen to break at: the row must wrap it, not grow wider than the screen.
    const user = person(`phone.user.with.a.long.address.${Date.now()}${++counter}@example.com`);
    fake.nextUser('github', user);
    const tab = await open('/', { viewport: { width: 375, height: 812 } });
    await tab.page.getByRole('link', { name: 'Continue with GitHub' }).click();
    await onAccountPage(tab.page, user.email);
    await tab.page.locator('#identities li', { hasText: `GitHub · ${user.email}` }).waitFor();
    expect(await tab.page.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth])).toEqual([375, 375]);
    await screenshot(tab.page, 'account-phone');
    expect(tab.errors).toEqual([]);
  });
});

describe('organizations', () => {
  it('creates one, invites a second person who accepts in another browser, and revokes an invite', async () => {
    const owner = await register(running, { password: PASSWORD, name: 'Olivia Owner' });
    const ownerTab = await signedIn(owner.email);
    const { page } = ownerTab;
    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.waitForURL(url('/organizations'));
    await shows(page, 'You are not in any organization yet.');
    await page.getByLabel('Name', { exact: true }).fill('Acme Studio');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Acme Studio' }).waitFor();
    const organizationId = new URL(page.url()).searchParams.get('id')!;
    await page.locator('#members tr', { hasText: owner.email }).filter({ hasText: 'Owner' }).waitFor();

    const invitee = uniqueEmail('pages-invitee');
    const since = running.mail.messages.length;
    await page.locator('#invite-form').getByLabel('Email').fill(invitee);
    await page.locator('#invite-form').getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await shows(page, `Invite mailed to ${invitee}.`);
    await page.locator('#invites li', { hasText: invitee }).waitFor();
    await screenshot(page, 'organizations');

    // The invitee: another browser, no account yet.
    const link = await mailedLink(invitee, since, '/invite/');
    const inviteeTab = await open(pathOf(link));
    const guest = inviteeTab.page;
    await guest.getByRole('heading', { name: 'Join Acme Studio' }).waitFor();
    expect(await guest.locator('[data-field="role"]').textContent()).toBe('Member');
    expect(await guest.locator('[data-field="invitedBy"]').textContent()).toBe('Olivia Owner');
    await screenshot(guest, 'invite');
    await guest.getByRole('button', { name: 'Sign in or create an account to accept' }).click();
    await guest.waitForURL(url('/'));
    await guest.getByText('New here? Create an account').click();
    await guest.locator('#register-form').getByLabel('Email').fill(invitee);
    await guest.locator('#register-form').getByLabel('Password').fill(PASSWORD);
    await guest.getByRole('button', { name: 'Create account' }).click();
    await guest.waitForURL(link);
    await shows(guest, `You are signed in as ${invitee}.`);
    await guest.getByRole('button', { name: 'Accept and join' }).click();
    await shows(guest, 'You joined Acme Studio.');

    const ownerToken = (await tokenOf(page))!;
    const members = await api(`/api/organizations/${organizationId}/members`, { token: ownerToken });
    expect(members.body.members.map((member: { email: string; role: string }) => [member.email, member.role]).sort()).toEqual(
      [[owner.email, 'owner'], [invitee, 'member']].sort(),
    );

    // A second invite, revoked: its link stops working.
    const other = uniqueEmail('pages-revoked');
    const beforeOther = running.mail.messages.length;
    await page.locator('#invite-form').getByLabel('Email').fill(other);
    await page.getByRole('button', { name: 'Send invite' }).click();
    await page.getByRole('button', { name: `Revoke the invite for ${other}` }).click();
    await shows(page, 'No pending invites.');
    expect((await api(`/api/organizations/${organizationId}/invites`, { token: ownerToken })).body.invites).toEqual([]);
    const revoked = await mailedLink(other, beforeOther, '/invite/');
    await guest.goto(revoked);
    expect(await shows(guest, 'This invite was withdrawn.')).toBeTruthy();

    expect(ownerTab.errors).toEqual([]);
    expect(inviteeTab.errors).toEqual([failedLoad(410, `/api/organizations/invite/${revoked.split('/invite/')[1]}`)]);
    // The request log names the page's route, never the invite link's token.
    await running.app.waitForOutput('"path":"/invite/:token"');
    expect(running.app.output()).not.toContain(link.split('/invite/')[1]);
  });
});
