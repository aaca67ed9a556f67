import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { freePort, startAppProcess, type AppProcess, type call } from './app-process.js';
import type { PreparedFixture } from './fixtures.js';
import { smtpEnv, startMailCatcher, type MailCatcher } from './mail-catcher.js';

export const TEST_JWT_SECRET = 'runtime-test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
export const TEST_APP_URL = 'http://frontend.test';

/** A new SQLite file next to the fixture, migrated with the app's own `db:migrate`. */
export function freshSqliteDatabase(fixture: PreparedFixture, name: string): string {
  const url = `file:${path.join(fixture.dir, `${name}-${Date.now()}.db`)}`;
  fixture.run('db:migrate', { DATABASE_URL: url });
  return url;
}

export interface RunningApp {
  readonly app: AppProcess;
  readonly mail: MailCatcher;
  readonly databaseUrl: string;
  /** The environment the app was started with, plus extras (to start a second instance). */
  env(extra?: Record<string, string>): Record<string, string>;
}

/**
 * Registers beforeAll/afterAll that start a real SMTP catcher and the fixture's built server with
 * the usual test environment (fast bcrypt, no rate limits, mail to the catcher).
 */
export function useRunningApp(options: {
  fixture: () => PreparedFixture;
  databaseUrl: () => string;
  env?: () => Record<string, string>;
  /**
   * APP_URL (and API_URL) is the app itself at http://localhost:<port>, as with its built-in pages,
   * instead of TEST_APP_URL. Other local servers (127.0.0.1) are then another site to a browser.
   */
  appUrlIsSelf?: boolean;
}): RunningApp {
  let app: AppProcess | undefined;
  let mail: MailCatcher | undefined;
  let databaseUrl = '';
  let self: { PORT: string; API_URL: string } | undefined;
  const env = (extra: Record<string, string> = {}) => ({
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: databaseUrl,
    APP_URL: self?.API_URL ?? TEST_APP_URL,
    BCRYPT_COST: '4',
    RATE_LIMIT_MAX: '0',
    ...smtpEnv(mail!),
    ...options.env?.(),
    ...extra,
  });
  let stopping = false;
  beforeAll(async () => {
    mail = await startMailCatcher();
    databaseUrl = options.databaseUrl();
    if (options.appUrlIsSelf) {
      const port = await freePort();
      self = { PORT: String(port), API_URL: `http://localhost:${port}` };
    }
    app = await startAppProcess(options.fixture().dir, { ...env(), ...self });
    // An app that dies under the tests says why, instead of leaving only refused connections.
    app.child.once('exit', (code, signal) => {
      if (!stopping) console.error(`the app exited on its own (code ${code}, signal ${signal}); its output:\n${app?.output()}`);
    });
  });
  afterAll(async () => {
    stopping = true;
    await app?.stop();
    await mail?.close();
  });
  return {
    get app() {
      return app!;
    },
    get mail() {
      return mail!;
    },
    get databaseUrl() {
      return databaseUrl;
    },
    env,
  };
}

type Reply = Awaited<ReturnType<typeof call>>;

/**
 * Starts a second instance allowing `max` requests per window, sends max + 1 requests and expects
 * the allowed ones to answer `allowedStatus` and the last one 429 RATE_LIMITED with Retry-After.
 * `after` runs further checks against the limited instance before it stops.
 */
export async function expectRateLimit(
  running: RunningApp,
  fixture: PreparedFixture,
  options: { max: number; allowedStatus: number; request: (url: string) => Promise<Reply>; after?: (url: string) => Promise<void> },
): Promise<void> {
  const limited = await startAppProcess(fixture.dir, running.env({ RATE_LIMIT_MAX: String(options.max), RATE_LIMIT_WINDOW_SECONDS: '60' }));
  try {
    const replies: Reply[] = [];
    for (let i = 0; i <= options.max; i++) replies.push(await options.request(limited.url));
    expect(replies.map((reply) => reply.status)).toEqual([...Array(options.max).fill(options.allowedStatus), 429]);
    const last = replies[options.max]!;
    expect(last.body.error.code).toBe('RATE_LIMITED');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    await options.after?.(limited.url);
  } finally {
    await limited.stop();
  }
}

/** Every line the app printed is JSON, and none contains any of the secrets. */
export function expectCleanLogs(output: string, secrets: string[]): void {
  for (const secret of secrets) expect(output).not.toContain(secret);
  for (const line of output.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
}
