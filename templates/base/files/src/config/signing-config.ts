import { z } from 'zod';
import { optionalString, wholeNumber } from './base-config.js';

/** The algorithms access tokens may be signed with: HS256 with JWT_SECRET, or a key pair of the app's own. */
export const JWT_ALGORITHMS = ['HS256', 'EdDSA', 'ES256'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** How to make a key-encryption key, shown when KEY_ENCRYPTION_KEYS is missing or malformed. */
export const KEY_ENCRYPTION_HINT = `generate one with: node -e "console.log('k1:' + crypto.randomBytes(32).toString('base64'))"`;

/** One entry of KEY_ENCRYPTION_KEYS: an id stored beside what it encrypts, and a 256-bit AES key. */
export interface KeyEncryptionKey {
  id: string;
  key: Buffer;
}

const ENTRY = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/_-]+={0,2})$/;

/**
 * "k2:base64,k1:base64" -> [{ id: 'k2', key }, { id: 'k1', key }], or what is wrong with it. The
 * first entry encrypts; every entry decrypts, so an old key stays listed until `keys:rotate` has
 * re-encrypted everything under the new one.
 */
export function parseKeyEncryptionKeys(value: string): KeyEncryptionKey[] | string {
  const keys: KeyEncryptionKey[] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    const match = ENTRY.exec(entry);
    const key = match ? Buffer.from(match[2]!, 'base64') : undefined;
    if (!match || key?.length !== 32) {
      return `must be a comma-separated list of id:key entries, each key 32 random bytes in base64; ${KEY_ENCRYPTION_HINT}`;
    }
    if (keys.some((known) => known.id === match[1])) return `must not list the id "${match[1]}" twice; each entry needs an id of its own`;
    keys.push({ id: match[1]!, key });
  }
  return keys;
}

const keyEncryptionKeys = optionalString.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const parsed = parseKeyEncryptionKeys(value);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return parsed;
});

/** JWT_ALGORITHM, JWT_AUDIENCE, KEY_ENCRYPTION_KEYS and SIGNING_KEY_ROTATION_DAYS (see docs in .env.example). */
export const signingConfig = {
  JWT_ALGORITHM: optionalString.pipe(z.enum(JWT_ALGORITHMS, { error: 'must be HS256, EdDSA or ES256' }).default('HS256')),
  /** The `aud` of access tokens signed with a key pair; default API_URL. */
  JWT_AUDIENCE: optionalString,
  KEY_ENCRYPTION_KEYS: keyEncryptionKeys,
  SIGNING_KEY_ROTATION_DAYS: wholeNumber(1).default(90),
};
