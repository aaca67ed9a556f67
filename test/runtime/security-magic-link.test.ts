/**
 * Issue 22, finding 10, replayed against the full fixture running as its own process with a real
 * SMTP server: a magic link that is only fetched (a mail scanner, a link preview, a front end that
 * links straight to the API) must sign nobody in and use nothing up (CONTRACT B.5, B.1).
 * The comment above each test says how it failed before the fix (release 3.7).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { linkFrom } from '../helpers/mail-catcher.js';
import { TEST_APP_URL as APP_URL, useRunningApp } from '../helpers/running-app.js';

let fixture: PreparedFixture;
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'security-magic-link') });

const api = (path: string, init: Parameters<typeof call>[2] = {}) => call(running.app.url, path, init);
const verify = (token: string) => api('/api/auth/magic-link/verify', { json: { token } });

/** Asks for a link for `email` and returns the token of the mailed link. */
async function mailedToken(email: string): Promise<string> {
  const since = running.mail.messages.length;
  expect((await api('/api/auth/magic-link/send', { json: { email } })).status).toBe(202);
  const link = linkFrom(await running.mail.waitForMail(email, { since }), `${APP_URL}/magic-link?token=`);
  return new URL(link).searchParams.get('token')!;
}

const SIGNED_IN = { token: expect.any(String), tokenType: 'Bearer', user: expect.objectContaining({ emailVerified: true }) };

describe('finding 10 (low): a magic link that is only fetched is used up, or signs the fetcher in', () => {
  // Before: GET /verify?token= was the verify route. The scanner's GET answered 200 with a token
  // response for the scanner, and the person's own click then got 401 INVALID_TOKEN.
  it('a GET (and a HEAD) of the verify route with a valid token answers 405 with Allow: POST; the token then signs in by POST', async () => {
    const email = uniqueEmail('scanned');
    const token = await mailedToken(email);
    const path = `/api/auth/magic-link/verify?token=${encodeURIComponent(token)}`;
    const fetched = await api(path);
    expect(fetched.status).toBe(405);
    expect(fetched.headers.get('allow')).toBe('POST');
    expect(fetched.body).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: expect.any(String) } });
    expect(JSON.stringify(fetched.body)).not.toContain(token);
    const head = await api(path, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    // A scanner that fetches twice, as some do, changes nothing either.
    expect((await api(path)).status).toBe(405);

    const clicked = await verify(token);
    expect(clicked.status).toBe(200);
    expect(clicked.body).toMatchObject({ ...SIGNED_IN, user: expect.objectContaining({ email }) });
    expect((await api('/api/auth/me', { token: clicked.body.token })).body.user.email).toBe(email);
  });

  // Before: POST /verify did not exist (404 NOT_FOUND).
  it('POST { token } works once: the second POST answers 401 INVALID_TOKEN', async () => {
    const token = await mailedToken(uniqueEmail('twice'));
    expect(await verify(token)).toMatchObject({ status: 200, body: SIGNED_IN });
    expect(await verify(token)).toMatchObject({ status: 401, body: { error: { code: 'INVALID_TOKEN' } } });
    // Nor does a GET bring it back, or answer anything but 405.
    expect((await api(`/api/auth/magic-link/verify?token=${encodeURIComponent(token)}`)).status).toBe(405);
  });

  // Before: POST /verify did not exist (404 NOT_FOUND).
  it('concurrent POSTs of one token: exactly one 200, every other 401 INVALID_TOKEN', async () => {
    const token = await mailedToken(uniqueEmail('race'));
    const replies = await Promise.all(Array.from({ length: 8 }, () => verify(token)));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    const losers = replies.filter((reply) => reply.status !== 200);
    expect(losers).toHaveLength(7);
    for (const loser of losers) expect(loser).toMatchObject({ status: 401, body: { error: { code: 'INVALID_TOKEN' } } });
  });

  // Before: POST /verify did not exist (404 NOT_FOUND for every body).
  it('POST without a usable token answers 400 VALIDATION_ERROR, and a token in the query string is not read', async () => {
    const token = await mailedToken(uniqueEmail('odd'));
    for (const json of [{}, { token: '' }, { token: 42 }, { token: [token] }, { token: { token } }]) {
      expect(await api('/api/auth/magic-link/verify', { json }), JSON.stringify(json)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } });
    }
    const inQuery = await api(`/api/auth/magic-link/verify?token=${encodeURIComponent(token)}`, { json: {} });
    expect(inQuery).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } });
    // None of these used the token.
    expect((await verify(token)).status).toBe(200);
  });
});
