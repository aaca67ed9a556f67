import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Config } from '../../../config.js';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';

/**
 * The AES-256 key for TOTP secrets: HKDF-SHA256 over TOTP_ENCRYPTION_KEY, or over JWT_SECRET when
 * that is not set. Changing whichever one is used makes the stored secrets unreadable.
 */
function encryptionKey(config: Config): Buffer {
  const material = config.TOTP_ENCRYPTION_KEY ?? config.JWT_SECRET;
  return Buffer.from(hkdfSync('sha256', material, '', 'totp-secret-encryption', 32));
}

/** Encrypts a TOTP secret for one user; the user id is authenticated too, so rows cannot be swapped. */
export function sealSecret(config: Config, userId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, encryptionKey(config), iv);
  cipher.setAAD(Buffer.from(userId));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** Decrypts what sealSecret wrote, or returns undefined when the key or the data does not match. */
export function openSecret(config: Config, userId: string, sealed: string): string | undefined {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) return undefined;
  try {
    const decipher = createDecipheriv(ALGORITHM, encryptionKey(config), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
