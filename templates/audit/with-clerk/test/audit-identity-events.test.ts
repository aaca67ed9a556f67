import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows, call, clientHeaders, expectEvent, Secrets } from './helpers/audit.js';
import { now, serviceKey, startServiceStub, type ServiceKey, type ServiceStub } from './helpers/service-stub.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// Identity events (B.16 rule 3 with a provider or hosted service), through Clerk's token exchange
// against a local stand-in of Clerk's API: a new user registers, a verified address links the
// identity to its account, the user unlinks it, and a refused token is a failed sign-in.

const ISSUER = 'https://clerk.test';
let stub: ServiceStub;
let key: ServiceKey;
let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  stub = await startServiceStub();
  key = await serviceKey('RS256', 'ins_audit');
  app = await startTestApp({
    CLERK_SECRET_KEY: 'sk_test_audit-identity-events',
    CLERK_JWT_KEY: key.pem,
    CLERK_ISSUER: ISSUER,
    CLERK_AUTHORIZED_PARTIES: 'http://app.test',
    CLERK_API_URL: stub.url,
  });
  secrets.add('sk_test_audit-identity-events');
});
afterAll(async () => {
  await app.close();
  await stub.close();
});

let users = 0;
/** A user at the stub's Backend API whose primary address Clerk verified. */
function clerkUser(email: string): string {
  const id = `user_audit${++users}`;
  stub.answer(`/v1/users/${id}`, {
    status: 200,
    json: {
      id,
      first_name: 'Ada',
      last_name: 'Lovelace',
      primary_email_address_id: 'idn_1',
      email_addresses: [{ id: 'idn_1', email_address: email, verification: { status: 'verified' } }],
    },
  });
  return id;
}

async function exchange(sub: string, claims: Record<string, unknown> = {}) {
  const token = await key.sign({
    iss: ISSUER,
    sub,
    azp: 'http://app.test',
    sid: 'sess_audit',
    iat: now(),
    nbf: now() - 10,
    exp: now() + 60,
    ...claims,
  });
  secrets.add(token);
  const answer = await call(app, '/api/auth/clerk/exchange', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...clientHeaders('clerk front end') },
  });
  secrets.addFrom(answer.body);
  return answer;
}

describe('identity events', () => {
  it('records a new Clerk user as registered and signed in with method clerk', async () => {
    const answer = await exchange(clerkUser(uniqueEmail('clerk')));
    expect(answer.status).toBe(200);
    const userId = answer.body.user.id as string;
    const self = { type: 'user', id: userId };
    const rows = await auditRows(app, { targetId: userId });
    expect(rows.map((row) => row.action)).toEqual(['auth.registered', 'auth.signed_in']);
    expectEvent(rows[0]!, { actor: self, target: self, ip: '127.0.0.1', userAgent: 'clerk front end', metadata: { method: 'clerk' } });
    expectEvent(rows[1]!, { actor: self, target: self, metadata: { method: 'clerk' } });
  });

  it('records an identity linked to the account of its verified address, and unlinked by the user', async () => {
    const existing = await createUserWithToken(app, uniqueEmail('linked'), { emailVerified: true });
    secrets.add(existing.token, existing.refreshToken);
    for (let i = 0; i < 2; i++) expect((await exchange(clerkUser(existing.user.email))).status).toBe(200);
    const self = { type: 'user', id: existing.user.id };
    const linked = await auditRows(app, { action: 'identity.linked', targetId: existing.user.id });
    const identities = await app.context.prisma.account.findMany({ where: { userId: existing.user.id }, orderBy: { createdAt: 'asc' } });
    expect(linked).toHaveLength(2);
    expectEvent(linked[0]!, {
      actor: self,
      target: self,
      userAgent: 'clerk front end',
      metadata: { provider: 'clerk', identityId: identities[0]!.id },
    });
    const unlinked = await call(app, `/api/auth/identities/${identities[0]!.id}`, {
      method: 'DELETE',
      token: existing.token,
      headers: clientHeaders('account page'),
    });
    expect(unlinked.status).toBe(204);
    const [event] = await auditRows(app, { action: 'identity.unlinked', targetId: existing.user.id });
    expectEvent(event!, {
      actor: self,
      target: self,
      userAgent: 'account page',
      metadata: { provider: 'clerk', identityId: identities[0]!.id },
    });
  });

  it('records a refused Clerk token as a failed sign-in of method clerk', async () => {
    const before = await app.context.prisma.auditEvent.count();
    const refused = await exchange(clerkUser(uniqueEmail('refused')), { iss: 'https://other.clerk.test' });
    expect(refused.status).toBe(401);
    const rows = await auditRows(app, { seq: { gt: before } });
    expect(rows.map((row) => row.action)).toEqual(['auth.sign_in_failed']);
    expectEvent(rows[0]!, { actor: { type: 'user', id: null }, target: null, metadata: { method: 'clerk', reason: 'invalid_token' } });
  });
});

describe('secrets', () => {
  it("no event holds Clerk's tokens or secret key, or the app's tokens", async () => {
    await secrets.expectNoneIn(app);
  });
});
