/**
 * A real browser for tests: Debian's Chromium (apt-get install chromium) driven by playwright-core,
 * which downloads no browser of its own. One browser per test file; each test opens contexts,
 * which are separate browsers as far as cookies and storage go.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { WORK_DIR } from './fixtures.js';

export const CHROMIUM_PATH = process.env.GATEKIT_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SCREENSHOT_DIR = path.join(WORK_DIR, 'screenshots');

/** A browser context with one page, and every error its pages reported. */
export interface Tab {
  context: BrowserContext;
  page: Page;
  /**
   * Console errors (script errors, CSP violations, failed loads) and uncaught exceptions of every
   * page of the context, in order.
   */
  errors: string[];
  /** A second tab of the same browser: same cookies, its own sessionStorage (as a link opened from a mail). */
  newPage(): Promise<Page>;
}

function watch(page: Page, errors: string[]): Page {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return page;
}

/** Starts Chromium before the file's tests and closes it after them. */
export function useBrowser(): { open(options?: { viewport?: { width: number; height: number } }): Promise<Tab> } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM_PATH)) {
      throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install -y --no-install-recommends chromium, as .ci/run does) or set GATEKIT_CHROMIUM.`);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async open({ viewport = { width: 1024, height: 800 } } = {}) {
      const context = await browser!.newContext({ viewport, colorScheme: 'light' });
      const errors: string[] = [];
      const page = watch(await context.newPage(), errors);
      return { context, page, errors, newPage: async () => watch(await context.newPage(), errors) };
    },
  };
}

/** Saves a full-page screenshot as test/tmp/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Waits until `page` shows the built-in account page of `appUrl`, signed in as `email`. */
export async function onAccountPage(page: Page, appUrl: string, email: string): Promise<void> {
  await page.waitForURL(`${appUrl}/account`);
  await page.locator('#profile [data-field="email"]', { hasText: email }).waitFor();
}

/** Signs in through the built-in sign-in page of `appUrl` with a password, in a new browser, up to the account page. */
export async function signInThroughPages(open: () => Promise<Tab>, appUrl: string, email: string, password: string): Promise<Tab> {
  const tab = await open();
  tab.page.setDefaultTimeout(15_000);
  await tab.page.goto(`${appUrl}/`);
  const form = tab.page.locator('#sign-in-form');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Sign in' }).click();
  await onAccountPage(tab.page, appUrl, email);
  return tab;
}
