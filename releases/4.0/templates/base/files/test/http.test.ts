import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../src/http/validate.js';
import { emailAddress } from '../src/modules/auth/email-address.js';
import { hostedServices, oauthProviders, signInMethods } from '../src/modules/auth/providers.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('health and documents', () => {
  it('answers /healthz and /readyz', async () => {
    expect(await (await app.request('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
  });

  it('serves an OpenAPI 3.1 document that lists /api/auth/me', async () => {
    const document = await (await app.request('/api/openapi.json')).json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths['/api/auth/me'].get).toBeDefined();
  });

  it('lists the sign-in methods of this app, with no OAuth provider configured yet', async () => {
    const providers = await (await app.request('/api/auth/providers')).json();
    expect(providers).toEqual({
      methods: signInMethods,
      oauth: oauthProviders.map(({ id, name }) => ({ id, name, configured: false })),
      hosted: hostedServices,
    });
    expect(providers.methods.length + providers.oauth.length).toBeGreaterThan(0);
  });
});

describe('errors and bodies', () => {
  it('answers an unknown route with the error body', async () => {
    const response = await app.request('/nope');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('answers an unknown path under a module prefix, and one only starting like it, with the error body', async () => {
    for (const path of ['/api/auth/nope', '/api/authx/me']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect((await response.json()).error.code).toBe('NOT_FOUND');
    }
  });

  it('matches routes whatever the case of their path, as Express does, also across module prefixes', async () => {
    const response = await app.request('/API/Auth/providers');
    expect(response.status).toBe(200);
    expect((await response.json()).methods).toEqual(signInMethods);
  });

  it('rejects malformed JSON with 400 INVALID_JSON', async () => {
    const response = await app.request('/api/auth/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('INVALID_JSON');
  });

  it('rejects a non-JSON body with 415', async () => {
    const response = await app.request('/api/auth/logout', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a chunked non-JSON body with 415 too', async () => {
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('hello'));
        controller.close();
      },
    });
    const response = await app.request('/api/auth/logout', { method: 'POST', headers: { 'content-type': 'text/plain' }, body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a body over 100 kB with 413', async () => {
    const response = await app.request('/api/auth/logout', { method: 'POST', json: { padding: 'x'.repeat(101 * 1024) } });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('client mistakes are 4xx in the error shape, never 500', () => {
  it('answers a corrupt gzip body with 400', async () => {
    const corrupt = Buffer.concat([gzipSync(Buffer.from('{"a":1}')).subarray(0, 12), Buffer.from('not gzip at all')]);
    const response = await app.request('/api/auth/logout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: corrupt,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it('answers a control character in a path (a NUL, a line break) with 404 before any route reads it', async () => {
    for (const path of ['/api/auth/me%00', '/api/auth/%00/x', '/api/organizations/%0a', '/x%7F', '/api/auth/identities/%1f']) {
      const response = await app.request(path, { method: 'GET' });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });

  it('refuses an email whose lowercasing turns a non-ASCII character into ASCII (Kelvin sign, dotted capital I)', () => {
    expect(emailAddress.parse('  Kate@Example.COM ')).toBe('kate@example.com');
    for (const value of ['\u212Aate@example.com', '\u0130nes@example.com', 'kate@\u212A.example.com']) {
      expect(emailAddress.safeParse(value).success, value).toBe(false);
    }
  });

  it('validates a deeply nested body without overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(50_000)}"\\u0000"${']'.repeat(50_000)}`);
    expect(() => validate(z.object({}), { value: deep })).toThrow(expect.objectContaining({ status: 400, code: 'VALIDATION_ERROR' }));
    expect(validate(z.object({}), { value: JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`) })).toEqual({});
  });
});

describe('security headers', () => {
  it('never lets an API answer be cached', async () => {
    expect((await app.request('/api/auth/providers')).headers.get('cache-control')).toBe('no-store');
  });

  it('sends helmet headers and no X-Powered-By', async () => {
    const response = await app.request('/healthz');
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('allows CORS only for APP_URL', async () => {
    const allowed = await app.request('/healthz', { headers: { origin: 'http://app.test' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.test');
    const other = await app.request('/healthz', { headers: { origin: 'http://evil.test' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight from APP_URL with credentials allowed, and one from elsewhere without', async () => {
    const preflight = (origin: string) =>
      app.request('/api/auth/logout', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    const allowed = await preflight('http://app.test');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await preflight('http://evil.test');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('adds no CORS headers without an Origin, but still varies on it', async () => {
    const response = await app.request('/api/auth/providers');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
  });
});
