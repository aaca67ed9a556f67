import { expect } from 'vitest';
import { call } from './app-process.js';
import { linkFrom } from './mail-catcher.js';
import type { RunningApp } from './running-app.js';

export interface Account {
  email: string;
  token: string;
  userId: string;
}

let counter = 0;
/** A new address for every call, unique across test files running at once. */
export const uniqueEmail = (name = 'user') => `${name}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.com`;

/** Verifies the account's address the way its owner does: the mailed link, opened while signed in. */
export async function verifyEmail(running: RunningApp, account: { email: string; token: string }): Promise<void> {
  const since = running.mail.messages.length;
  expect((await call(running.app.url, '/api/auth/email/verify/send', { method: 'POST', token: account.token })).status).toBe(202);
  const mail = await running.mail.waitForMail(account.email, { since, subject: /confirm/i });
  const token = new URL(linkFrom(mail, `${running.env().APP_URL}/verify-email?token=`)).searchParams.get('token');
  const verified = await call(running.app.url, '/api/auth/email/verify', { token: account.token, json: { token } });
  expect(verified.status).toBe(200);
}

/** Registers with a password; `verified` also proves the mailbox. */
export async function register(running: RunningApp, options: { email?: string; password: string; name?: string; verified?: boolean }): Promise<Account> {
  const email = options.email ?? uniqueEmail();
  const response = await call(running.app.url, '/api/auth/register', { json: { email, password: options.password, name: options.name } });
  expect(response.status).toBe(201);
  const account = { email, token: response.body.token as string, userId: response.body.user.id as string };
  if (options.verified) await verifyEmail(running, account);
  return account;
}
