import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * An API key is its prefix (gk_user_ or gk_org_), 256 random bits in base62, then a 6-character
 * base62 checksum (CRC32) of everything before it, as GitHub's tokens have: a mistyped or cut key is
 * refused without a database read, and secret scanners can recognise a key by its shape
 * (gk_(user|org)_[0-9A-Za-z]{49}). Only its SHA-256 hash is stored.
 */
export const KEY_PREFIXES = { user: 'gk_user_', organization: 'gk_org_' } as const;
export type KeyKind = keyof typeof KEY_PREFIXES;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256: 43 digits hold 256 bits. */
const RANDOM_DIGITS = 43;
const CHECKSUM_DIGITS = 6;

/** `value` in base62, left-padded with zeros to `digits`. */
function base62(value: bigint, digits: number): string {
  let text = '';
  for (let rest = value; rest > 0n; rest /= 62n) text = BASE62[Number(rest % 62n)] + text;
  return text.padStart(digits, '0');
}

const checksumOf = (body: string) => base62(BigInt(crc32(body)), CHECKSUM_DIGITS);

/** A new key of `kind`, for showing once. */
export function newKey(kind: KeyKind): string {
  const body = KEY_PREFIXES[kind] + base62(BigInt(`0x${randomBytes(32).toString('hex')}`), RANDOM_DIGITS);
  return body + checksumOf(body);
}

/** True when `key` has the prefix of `kind`, the right length and alphabet, and a checksum that matches. */
export function isWellFormed(key: string, kind: KeyKind): boolean {
  const prefix = KEY_PREFIXES[kind];
  if (!key.startsWith(prefix) || key.length !== prefix.length + RANDOM_DIGITS + CHECKSUM_DIGITS) return false;
  const rest = key.slice(prefix.length);
  if (![...rest].every((character) => BASE62.includes(character))) return false;
  const body = key.slice(0, -CHECKSUM_DIGITS);
  return key.slice(-CHECKSUM_DIGITS) === checksumOf(body);
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** The first 12 characters, which the key list shows so people can tell their keys apart. */
export const startOf = (key: string) => key.slice(0, 12);
