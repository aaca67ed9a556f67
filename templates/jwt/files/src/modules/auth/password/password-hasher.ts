import { createHash } from 'node:crypto';
import bcrypt from 'bcrypt';

/**
 * bcrypt reads only the first 72 bytes of its input, so two long passwords sharing a prefix would
 * both match. Hashing with SHA-256 first (base64: 44 bytes, no NUL) makes every byte count.
 */
function preHash(password: string): string {
  return createHash('sha256').update(password.normalize('NFC'), 'utf8').digest('base64');
}

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(preHash(password), cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(preHash(password), hash);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real check when there is no account, so login timing does not reveal
 * which emails are registered.
 */
export async function verifyAgainstDummy(password: string, cost: number): Promise<false> {
  dummyHash ??= hashPassword('gatekit-dummy-password-for-equal-timing', cost);
  await verifyPassword(password, await dummyHash);
  return false;
}
