import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInMethodChecks } from '../src/modules/auth/account-hooks.js';
import { linkIdentity, signInWithIdentity } from '../src/modules/auth/identities/identity-sign-in.js';
import type { ProviderProfile } from '../src/modules/auth/identities/provider-profile.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

let counter = 0;
const profile = (fields: Partial<ProviderProfile> = {}): ProviderProfile => ({
  provider: 'test-provider',
  providerAccountId: `account-${Date.now()}-${++counter}`,
  type: 'oidc',
  email: uniqueEmail('identity'),
  emailVerified: true,
  name: 'Ada',
  image: null,
  ...fields,
});

describe('the account rules', () => {
  it('creates a user for a new identity, and signs the same identity in as that user again', async () => {
    const someone = profile();
    const first = await signInWithIdentity(app.context, someone);
    const again = await signInWithIdentity(app.context, { ...someone, email: uniqueEmail('changed') });
    expect('user' in first && 'user' in again && again.user.id === first.user.id).toBe(true);
  });

  it('links a verified email to the existing user, and takes a provisional account over', async () => {
    const provisional = await createUserWithToken(app);
    const result = await signInWithIdentity(app.context, profile({ email: provisional.user.email }));
    expect('user' in result && result.user.id).toBe(provisional.user.id);
    expect('user' in result && result.user.emailVerified).toBe(true);
    expect((await app.request('/api/auth/me', { token: provisional.token })).status).toBe(401);
  });

  it('never links an unverified email (account_exists) and needs an email (email_required)', async () => {
    const existing = await createUserWithToken(app, uniqueEmail(), { emailVerified: true });
    expect(await signInWithIdentity(app.context, profile({ email: existing.user.email, emailVerified: false }))).toEqual({ refused: 'account_exists' });
    expect(await signInWithIdentity(app.context, profile({ email: null }))).toEqual({ refused: 'email_required' });
    expect(await app.context.prisma.account.count({ where: { userId: existing.user.id } })).toBe(0);
  });

  it("links to a signed-in user, and refuses another user's identity (identity_in_use)", async () => {
    const first = await createUserWithToken(app);
    const second = await createUserWithToken(app);
    const theirs = profile();
    expect(await linkIdentity(app.context, theirs, first.user)).toEqual({ user: first.user });
    expect(await linkIdentity(app.context, theirs, second.user)).toEqual({ refused: 'identity_in_use' });
  });
});

describe('unlinking', () => {
  it('lists identities, unlinks one, and keeps the last way to sign in (409 LAST_SIGN_IN_METHOD) unless another method exists', async () => {
    const { user, token } = await createUserWithToken(app);
    await linkIdentity(app.context, profile(), user);
    await linkIdentity(app.context, profile(), user);
    const listed = (await (await app.request('/api/auth/identities', { token })).json()).identities as { id: string }[];
    expect(listed).toHaveLength(2);
    expect((await app.request(`/api/auth/identities/${listed[0]!.id}`, { method: 'DELETE', token })).status).toBe(204);
    const otherMethod = (await Promise.all(signInMethodChecks.map((check) => check(app.context.prisma, user.id)))).some(Boolean);
    const last = await app.request(`/api/auth/identities/${listed[1]!.id}`, { method: 'DELETE', token });
    expect(last.status).toBe(otherMethod ? 204 : 409);
    if (!otherMethod) expect((await last.json()).error.code).toBe('LAST_SIGN_IN_METHOD');
  });
});
