import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin } from '../src/modules/auth/complete-login.js';
import { createUserWithToken, startTestApp, testSignIn, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('audit log', () => {
  it('records each sign-in and lists the user\'s own events, newest first', async () => {
    const { user, token } = await createUserWithToken(app);
    const other = await createUserWithToken(app);
    await completeLogin(app.context, user, testSignIn);
    await completeLogin(app.context, user, testSignIn);
    await completeLogin(app.context, other.user, testSignIn);

    const response = await app.request('/api/audit-log', { token });
    expect(response.status).toBe(200);
    const { events } = await response.json();
    expect(events).toHaveLength(2);
    expect(events.map((event: { action: string }) => event.action)).toEqual(['sign-in', 'sign-in']);
    expect(Date.parse(events[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(events[1].createdAt));
  });

  it('needs a token', async () => {
    const response = await app.request('/api/audit-log');
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('UNAUTHENTICATED');
  });
});
