import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { warnNotConfigured } from '../src/modules/auth/not-configured.js';
import { oauthProviders, warnUnconfiguredProviders } from '../src/modules/auth/providers.js';

/** A real pino logger whose JSON lines are kept. */
function capturingLogger() {
  const lines: { level: number; msg: string; set?: string[] }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const base = { DATABASE_URL: 'file:./test.db', JWT_SECRET: 'a'.repeat(40) };

describe('start-up report of what is not configured', () => {
  it('names the provider and the variables that turn it on, outside production', async () => {
    const { logger, lines } = capturingLogger();
    warnNotConfigured(loadConfig({ ...base, NODE_ENV: 'development' }), logger, 'Example sign-in', ['EXAMPLE_CLIENT_ID', 'EXAMPLE_CLIENT_SECRET']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe('Example sign-in is not configured: set EXAMPLE_CLIENT_ID, EXAMPLE_CLIENT_SECRET in .env to turn it on');
    expect(lines[0]!.set).toEqual(['EXAMPLE_CLIENT_ID', 'EXAMPLE_CLIENT_SECRET']);
  });

  it('stays quiet in production', async () => {
    const { logger, lines } = capturingLogger();
    warnNotConfigured(loadConfig({ ...base, NODE_ENV: 'production' }), logger, 'Example sign-in', ['EXAMPLE_CLIENT_ID']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(0);
  });

  it("reports each of this app's OAuth providers while its variables are empty", async () => {
    const { logger, lines } = capturingLogger();
    warnUnconfiguredProviders(loadConfig({ ...base, NODE_ENV: 'development' }), logger);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => line.set)).toEqual(oauthProviders.map((provider) => provider.requiredEnv));
  });
});
