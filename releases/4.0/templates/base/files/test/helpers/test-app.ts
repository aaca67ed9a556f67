import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import type { User } from '../../src/generated/prisma/client.js';
import type { MailMessage, Mailer } from '../../src/mail/mailer.js';
import { signAccessToken } from '../../src/modules/auth/access-tokens.js';
import { issueTokenResponse } from '../../src/modules/auth/complete-login.js';
import type { SignIn } from '../../src/modules/auth/sessions.js';
import { createTestDatabase } from './test-database.js';

export interface TestApp {
  url: string;
  context: AppContext;
  /** Mails the app sent, newest last. */
  mails: MailMessage[];
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** Records mails instead of sending them; the generator's own suite covers real SMTP. */
function recordingMailer(mails: MailMessage[]): Mailer {
  return { configured: true, send: async (message) => void mails.push(message), close: () => {} };
}

/** Starts the app on a random local port against a fresh, migrated database. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    APP_URL: 'http://app.test',
    ...env,
  });
  const mails: MailMessage[] = [];
  const { app, context, close } = await createApp(config, { mailer: recordingMailer(mails) });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    context,
    mails,
    request: (path, { token, json, headers, ...init } = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: {
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: json === undefined ? init.body : JSON.stringify(json),
      }),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await close();
      await database.drop();
    },
  };
}

export const uniqueEmail = (name = 'user') => `${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}@example.com`;

/** How the helpers below sign in: a password sign-in from nowhere in particular. */
export const testSignIn: SignIn = { method: 'password', userAgent: 'vitest', ip: '127.0.0.1' };

/** A user straight in the database (email unverified unless asked), signed in: a session and its first tokens. */
export async function createUserWithToken(
  app: TestApp,
  email = uniqueEmail(),
  fields: { emailVerified?: boolean } = {},
): Promise<{ user: User; token: string; refreshToken: string }> {
  const user = await app.context.prisma.user.create({ data: { email, ...fields } });
  const { token, refreshToken } = await issueTokenResponse(app.context, user, testSignIn);
  return { user, token, refreshToken: refreshToken! };
}

/** A valid access token of a session that signed in `minutesAgo` minutes ago (for the recent sign-in rule). */
export async function olderToken(app: TestApp, user: User, minutesAgo: number): Promise<string> {
  const signedInAt = new Date(Date.now() - minutesAgo * 60_000);
  const session = await app.context.prisma.session.create({
    data: { userId: user.id, method: 'password', createdAt: signedInAt, lastUsedAt: signedInAt, expiresAt: new Date(Date.now() + 86_400_000), maxExpiresAt: new Date(Date.now() + 86_400_000) },
  });
  return signAccessToken(app.context.config, session).token;
}

/** The link on its own line of a mail's text that starts with prefix. */
export function linkFrom(mail: MailMessage | undefined, prefix: string): string {
  const line = mail?.text.split('\n').find((candidate) => candidate.trim().startsWith(prefix));
  if (!line) throw new Error(`No line starting with ${prefix} in mail: ${mail?.text ?? '(no mail)'}`);
  return line.trim();
}

export async function waitForMail(app: TestApp, count: number): Promise<MailMessage> {
  for (let attempt = 0; attempt < 100 && app.mails.length < count; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const mail = app.mails[count - 1];
  if (!mail) throw new Error(`Expected ${count} mail(s), got ${app.mails.length}`);
  return mail;
}
