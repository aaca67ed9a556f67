import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPages, PUBLIC_DIR } from '../src/modules/pages/pages.routes.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('built-in pages', () => {
  it('serves every HTML file of public/ at its path, with the strict Content-Security-Policy', async () => {
    const pages = listPages();
    expect(pages.map((page) => page.path)).toContain('/');
    expect(pages.map((page) => page.path)).toContain('/account');
    for (const page of pages) {
      const response = await app.request(page.path.replace(/:\w+/g, 'sample'));
      expect(response.status, page.path).toBe(200);
      expect(response.headers.get('content-type'), page.path).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control'), page.path).toBe('no-cache');
      expect(response.headers.get('content-security-policy'), page.path).toMatch(/script-src 'self'/);
      expect(await response.text()).toBe(readFileSync(path.join(PUBLIC_DIR, page.file), 'utf8'));
    }
  });

  it('uses no inline script or style, nothing from another origin, and never a GET form', () => {
    for (const { file } of listPages()) {
      const html = readFileSync(path.join(PUBLIC_DIR, file), 'utf8');
      expect(html, file).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html, file).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
      expect(html, file).not.toMatch(/(src|href)="(https?:)?\/\//);
      // A form submitted before its script loads must not put a password in the address bar.
      expect(html, file).not.toMatch(/<form(?![^>]*method="post")/);
    }
  });

  it('serves assets with their type, and nothing outside public/assets', async () => {
    const css = await app.request('/assets/pages.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const script = await app.request('/assets/api.js');
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    // fetch resolves . and .. segments itself; those that hide a slash (%2F) reach the app as sent.
    for (const probe of ['/assets/../src/server.ts', '/assets/%2e%2e/package.json', '/assets/..%2f.env', '/assets/missing.js', '/assets/..%2f', '/assets/x%2f..%2f..%2findex.html', '/assets/.%2f']) {
      const response = await app.request(probe);
      expect(response.status, probe).toBe(404);
      expect((await response.json()).error.code, probe).toBe('NOT_FOUND');
    }
  });

  it('leaves the API as it was: JSON errors, never stored', async () => {
    const response = await app.request('/api/no-such-route');
    expect(response.status).toBe(404);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await response.json()).error.code).toBe('NOT_FOUND');
  });
});
