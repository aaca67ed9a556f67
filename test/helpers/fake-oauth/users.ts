/**
 * Who logs in when a test queued nobody: one default user per provider, with an account id shaped
 * like the provider's own, and the small derivations (first/last name, username) formats need.
 */
import { createHash } from 'node:crypto';
import type { FakeUser, ProviderId } from './types.js';

const DEFAULT_IDS: Record<ProviderId, string> = {
  google: '109876543210987654321',
  github: '583231',
  facebook: '10158000000000001',
  twitter: '2244994945',
  discord: '80351110224678912',
  microsoft: '00000000-0000-0000-66f3-3332eca7ea81',
  apple: '001234.0f5e8a3c9b6d4e2f8a1b7c3d5e9f0a12.1234',
  linkedin: 'yrZCpj2Z12',
  gitlab: '1234567',
  slack: 'U0R7JM',
  twitch: '141981764',
  oidc: 'oidc-user-1',
};

/** Personal Microsoft accounts (MSA) all carry this tenant id. */
export const MSA_TENANT_ID = '9188040d-6c67-4c5b-b112-36a304b66dad';
/** The tenant of a work account when nothing else decides it. */
export const DEFAULT_TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const DEFAULT_TEAM_ID = 'T0FAKETEAM';

export function defaultUser(provider: ProviderId): FakeUser {
  return {
    id: DEFAULT_IDS[provider],
    email: `ada.${provider}@example.com`,
    emailVerified: true,
    name: 'Ada Lovelace',
    picture: `https://images.example.com/${provider}/ada.png`,
  };
}

export function isVerified(user: FakeUser): boolean {
  return Boolean(user.email) && user.emailVerified !== false;
}

export function firstAndLastName(user: FakeUser): { firstName: string; lastName: string } {
  const [firstName = '', ...rest] = (user.name ?? '').split(' ');
  return { firstName, lastName: rest.join(' ') };
}

export function usernameOf(user: FakeUser): string {
  return user.username ?? (user.name ?? `user${user.id}`).toLowerCase().replace(/[^a-z0-9]+/g, '');
}

/** A stable hex digest, for avatar hashes and pairwise subjects. */
export function digest(value: string, encoding: 'hex' | 'base64url' = 'hex'): string {
  return createHash('sha256').update(value).digest(encoding);
}
