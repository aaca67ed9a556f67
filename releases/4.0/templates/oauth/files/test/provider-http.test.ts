import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config.js';
import { usableEndpoint } from '../src/modules/auth/oauth/discovery.js';
import { ProviderError } from '../src/modules/auth/oauth/provider-error.js';
import { limitedFetch, MAX_ANSWER_BYTES } from '../src/modules/auth/oauth/provider-http.js';

const FIFTY_MB = 50 * 1024 * 1024;

/** A provider that answers small, or (without Content-Length) 50 MB in 64 kB chunks, counting what it wrote. */
let server: Server;
let baseUrl: string;
const streamed = { bytes: 0, closedEarly: false };

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/small') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (req.url === '/declared') return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(FIFTY_MB) }).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'a'.repeat(64 * 1024);
    res.on('close', () => (streamed.closedEarly = streamed.bytes < FIFTY_MB));
    const pump = () => {
      while (streamed.bytes < FIFTY_MB && !res.destroyed) {
        streamed.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('answers from a provider', () => {
  it('are read as usual up to 1 MB', async () => {
    const response = await limitedFetch(`${baseUrl}/small`, {});
    expect(await response.json()).toEqual({ ok: true });
  });

  it('over 1 MB are refused as a provider error, declared or not, without being read in full', async () => {
    await expect(limitedFetch(`${baseUrl}/declared`, {})).rejects.toBeInstanceOf(ProviderError);
    await expect(limitedFetch(`${baseUrl}/streamed`, {})).rejects.toBeInstanceOf(ProviderError);
    await expect.poll(() => streamed.closedEarly).toBe(true);
    expect(streamed.bytes).toBeLessThan(FIFTY_MB / 2);
    expect(MAX_ANSWER_BYTES).toBe(1024 * 1024);
  });
});

describe('provider endpoints', () => {
  it('must be https URLs in production; plain http is for development', () => {
    const production = { NODE_ENV: 'production' } as Config;
    const development = { NODE_ENV: 'development' } as Config;
    expect(usableEndpoint(production, 'https://idp.example/authorize')).toBe(true);
    for (const value of ['http://idp.example/authorize', 'not a url', 'javascript:alert(1)//', undefined, 42]) {
      expect(usableEndpoint(production, value), String(value)).toBe(false);
    }
    expect(usableEndpoint(development, 'http://localhost:4000/authorize')).toBe(true);
    expect(usableEndpoint(development, 'ftp://idp.example/authorize')).toBe(false);
  });
});
