import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startAppProcess, type AppProcess } from './app-process.js';
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
}): RunningApp {
  let app: AppProcess | undefined;
  let mail: MailCatcher | undefined;
  let databaseUrl = '';
  const env = (extra: Record<string, string> = {}) => ({
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: databaseUrl,
    APP_URL: TEST_APP_URL,
    BCRYPT_COST: '4',
    RATE_LIMIT_MAX: '0',
    ...smtpEnv(mail!),
    ...options.env?.(),
    ...extra,
  });
  beforeAll(async () => {
    mail = await startMailCatcher();
    databaseUrl = options.databaseUrl();
    app = await startAppProcess(options.fixture().dir, env());
  });
  afterAll(async () => {
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
